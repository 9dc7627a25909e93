import Testing
@testable import TransferTopUI

@Suite struct ProgressTests {
    func bar(_ f: Double?, _ w: Int = 8, utf8: Bool = true, frame: Int = 0) -> String {
        ProgressBar.spans(fraction: f, width: w, utf8: utf8, frame: frame).map(\.text).joined()
    }

    @Test func determinateBars() {
        #expect(bar(0) == "········")
        #expect(bar(0.5) == "████····")
        #expect(bar(1) == "████████")
        #expect(bar(2) == "████████")
        #expect(bar(-1) == "········")
        #expect(bar(.nan) == "········")
    }

    @Test func eighthSteps() {
        // One column is 1/8 of an 8-wide bar; each eighth of it is a finer block.
        let steps = (0...8).map { bar(Double($0) / 64) }
        #expect(steps == ["········", "▏·······", "▎·······", "▍·······", "▌·······",
                          "▋·······", "▊·······", "▉·······", "█·······"])
        #expect(steps.allSatisfy { DisplayWidth.of($0) == 8 })
    }

    @Test func asciiBars() {
        #expect(bar(0, utf8: false) == "--------")
        #expect(bar(0.5, utf8: false) == "####----")
        #expect(bar(0.99, utf8: false) == "#######-")
        #expect(bar(1, utf8: false) == "########")
    }

    @Test func indeterminateBlockBounces() {
        let frames = (0..<14).map { bar(nil, frame: $0) }
        #expect(frames[0] == "██······")
        #expect(frames[1] == "·██·····")
        #expect(frames[6] == "······██")
        #expect(frames[7] == "·····██·")
        #expect(frames[12] == frames[0])
        #expect(bar(nil, utf8: false, frame: 2) == "--==----")
        #expect(bar(nil, 1, frame: 5) == "█")
        #expect(frames.allSatisfy { DisplayWidth.of($0) == 8 })
    }

    @Test func zeroWidthAndRoles() {
        #expect(ProgressBar.spans(fraction: 0.5, width: 0, utf8: true).isEmpty)
        let roles = ProgressBar.spans(fraction: 0.5, width: 4, utf8: true).map(\.role)
        #expect(roles == [.barFill, .barEmpty])
        #expect(ProgressBar.spans(fraction: nil, width: 8, utf8: true, frame: 2).map(\.role) == [.barEmpty, .barIndeterminate, .barEmpty])
    }

    /// A failed transfer's bar reads as failed without colour: the part it reached shaded,
    /// nothing when its size was unknown (a DNS failure drew a full bar, like a success).
    @Test func failedBars() {
        func text(_ f: Double?, _ utf8: Bool = true) -> String { ProgressBar.failed(fraction: f, width: 8, utf8: utf8).map(\.text).joined() }
        #expect(text(nil) == "········")
        #expect(text(0.5) == "▒▒▒▒····")
        #expect(text(0.3, false) == "xx------")
        #expect(text(1) == "▒▒▒▒▒▒▒▒")
        #expect(text(.nan) == "········")
        #expect(ProgressBar.failed(fraction: 0.5, width: 8, utf8: true).map(\.role) == [.barError, .barEmpty])
        #expect(ProgressBar.failed(fraction: 0.5, width: 0, utf8: true).isEmpty)
    }

    @Test func percentages() {
        #expect(ProgressBar.percent(0) == "  0%")
        #expect(ProgressBar.percent(0.5) == " 50%")
        #expect(ProgressBar.percent(0.999) == " 99%")
        #expect(ProgressBar.percent(1) == "100%")
        #expect(ProgressBar.percent(nil) == "   ?")
        #expect(ProgressBar.fraction(done: 5, expected: -1) == nil)
        #expect(ProgressBar.fraction(done: 5, expected: 10) == 0.5)
    }

    @Test func units() {
        #expect(Units.bytes(0) == "0 B")
        #expect(Units.bytes(1023) == "1023 B")
        #expect(Units.bytes(1536) == "1.5 KiB")
        #expect(Units.bytes(12_897_485) == "12.3 MiB")
        #expect(Units.bytes(150 << 20) == "150 MiB")
        #expect(Units.bytes(Int64.max) == "8.0 EiB")
        #expect(Units.speed(1_258_291) == "1.2 MiB/s")
        #expect(Units.speed(0) == "0 B/s")
        #expect(Units.speed(.infinity) == "0 B/s")
        #expect(Units.eta(nil) == "--")
        #expect(Units.eta(.infinity) == "--")
        #expect(Units.eta(42) == "42s")
        #expect(Units.eta(65) == "1m05s")
        #expect(Units.eta(7380) == "2h03m")
        #expect(Units.eta(3 * 86400 + 4 * 3600) == "3d04h")
        #expect(Units.millis(0.42) == "0.4ms")
        #expect(Units.millis(12.4) == "12ms")
        #expect(Units.millis(12_345) == "12.3s")
        #expect(Units.bytes(-5) == "0 B")
        #expect(Units.bytes(102_348) == "99.9 KiB" && Units.bytes(102_349) == "100 KiB", "the one-decimal edge")
    }

    /// Numbers written as bytes read as Swift prints them, the extremes included.
    @Test func byteTextWritesIntegersAsInterpolationDoes() {
        var values = [0, 1, 9, 10, 99, 100, -1, -10, 1_000_000, Int.max, Int.min, Int(Int32.max) + 1]
        var rng = SystemRandomNumberGenerator()
        values += (0..<200).map { _ in Int.random(in: Int.min...Int.max, using: &rng) >> Int.random(in: 0..<63, using: &rng) }
        for n in values {
            var out: [UInt8] = Array("x".utf8)
            ByteText.appendInteger(n, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == "x\(n)")
        }
        var text: [UInt8] = []
        ByteText.append("é ok", to: &text)
        #expect(text == Array("é ok".utf8))
    }

    @Test func speedMeterAveragesOverItsWindow() {
        var m = SpeedMeter(window: 3)
        #expect(m.bytesPerSecond == 0)
        m.record(bytes: 0, at: 0)
        m.record(bytes: 1000, at: 1)
        #expect(m.bytesPerSecond == 1000)
        m.record(bytes: 2000, at: 2)
        m.record(bytes: 3000, at: 3)
        m.record(bytes: 13000, at: 4)  // a burst: the window still holds 1 s..4 s
        #expect(m.bytesPerSecond == 4000)
        m.record(bytes: 13000, at: 8)  // stalled for 4 s: the window shows the stall
        #expect(m.bytesPerSecond == 0)
        #expect(m.eta(remaining: 100) == nil)
    }

    @Test func speedMeterRestartsWhenBytesGoDown() {
        var m = SpeedMeter()
        m.record(bytes: 5000, at: 0)
        m.record(bytes: 6000, at: 1)
        m.record(bytes: 0, at: 2)  // the server ignored the range: the download restarted
        #expect(m.bytesPerSecond == 0)
        m.record(bytes: 500, at: 2.5)
        #expect(m.bytesPerSecond == 1000)
        #expect(m.eta(remaining: 2000) == 2)
    }
}
