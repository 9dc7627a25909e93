import Foundation
import Testing
import TransferModel

/// multipart/x-mixed-replace split into parts (DECISIONS 68).
@Suite struct MultipartReplaceParserTests {
    static let body = "preamble to ignore\r\n--frame\r\nContent-Type: text/plain\r\nX-Part: 1\r\n\r\nfirst part\r\n"
        + "--frame\r\nContent-Type: application/octet-stream\r\n\r\nsecond\r\nwith a line break and --frame inside\r\n"
        + "--frame\r\nContent-Type: text/plain\r\n\r\n\r\n--frame--\r\nepilogue"

    /// Coalesces adjacent data events so feeding in any chunking gives one comparable result.
    private func parts(_ events: [MultipartReplaceParser.Event]) -> [(headers: [HTTPHeader], data: String)] {
        var out: [(headers: [HTTPHeader], data: String)] = []
        for e in events {
            switch e {
            case .part(let h): out.append((h, ""))
            case .data(let d): out[out.count - 1].data += String(decoding: d, as: UTF8.self)
            case .end: break
            }
        }
        return out
    }

    private func run(_ text: String, chunk: Int, boundary: String = "frame") -> [MultipartReplaceParser.Event] {
        var p = MultipartReplaceParser(boundary: boundary)
        let bytes = Array(text.utf8)
        var events: [MultipartReplaceParser.Event] = []
        var i = 0
        while i < bytes.count {
            events += p.feed(Data(bytes[i..<min(bytes.count, i + chunk)]))
            i += chunk
        }
        return events + p.finish()
    }

    @Test(arguments: [1, 2, 3, 7, 16, 1000])
    func splitsPartsWhateverTheChunking(chunk: Int) {
        let events = run(Self.body, chunk: chunk)
        #expect(events.last == .end)
        let p = parts(events)
        #expect(p.count == 3)
        #expect(p[0].headers == [HTTPHeader("Content-Type", "text/plain"), HTTPHeader("X-Part", "1")])
        #expect(p[0].data == "first part")
        #expect(p[1].headers == [HTTPHeader("Content-Type", "application/octet-stream")])
        #expect(p[1].data == "second\r\nwith a line break and --frame inside")
        #expect(p[2].data == "", "an empty part")
    }

    @Test func lfOnlyLineBreaksAndAnUnclosedLastPart() {
        let p = parts(run("--b\nContent-Type: text/plain\n\none\n--b\n\ntwo, cut off", chunk: 4, boundary: "b"))
        #expect(p.count == 2)
        #expect(p[0].data == "one")
        #expect(p[1].headers.isEmpty)
        #expect(p[1].data == "two, cut off", "held-back bytes are flushed at the end")
    }

    @Test func longPartsStreamInsteadOfWaitingForTheDelimiter() {
        var parser = MultipartReplaceParser(boundary: "x")
        _ = parser.feed(Data("--x\r\n\r\n".utf8))
        let events = parser.feed(Data(repeating: 65, count: 10_000))
        let emitted = events.reduce(0) { n, e in if case .data(let d) = e { return n + d.count } else { return n } }
        #expect(emitted >= 10_000 - 8)
    }

    @Test(arguments: [
        ("multipart/x-mixed-replace; boundary=frame", "frame"),
        ("Multipart/X-Mixed-Replace;boundary=\"my boundary\"", "my boundary"),
        ("multipart/x-mixed-replace; charset=x; boundary=--abc", "--abc"),
    ])
    func boundaryFromContentType(type: String, boundary: String) {
        #expect(MultipartReplaceParser.boundary(contentType: type) == boundary)
    }

    @Test(arguments: ["multipart/mixed; boundary=x", "multipart/x-mixed-replace", "multipart/x-mixed-replace; boundary=",
                      "multipart/x-mixed-replace; boundary=\(String(repeating: "a", count: 71))", "text/plain"])
    func noBoundary(type: String) {
        #expect(MultipartReplaceParser.boundary(contentType: type) == nil)
    }

    @Test func garbageNeverCrashesAndHugeHeadersStop() {
        var p = MultipartReplaceParser(boundary: "b")
        _ = p.feed(Data("--b\r\n".utf8))
        let e = p.feed(Data(repeating: 88, count: MultipartReplaceParser.maximumHeaderBytes + 10))
        #expect(e.isEmpty)
        #expect(p.feed(Data("\r\n\r\nlate".utf8)).isEmpty, "given up")
        var x: UInt64 = 99
        for size in [0, 1, 5, 100, 3000] {
            var q = MultipartReplaceParser(boundary: "--")
            var bytes = [UInt8]()
            for _ in 0..<size {
                x = x &* 6364136223846793005 &+ 1442695040888963407
                bytes.append([10, 13, 45, 58, 65][Int(x >> 61) % 5])
            }
            _ = q.feed(Data(bytes))
            _ = q.finish()
        }
    }
}
