import Testing
@testable import TransferModel

/// The maximum body size (curl's --max-filesize) and the decompression-bomb guard, by table.
@Suite struct BodySizeLimitTests {
    static let mib: Int64 = 1 << 20

    @Test(arguments: [
        (BodySizeLimit(maximum: 100, ratio: nil), Int64(100), Int64(0), BodySizeLimit.Verdict.within),
        (BodySizeLimit(maximum: 100, ratio: nil), 101, 0, .announcedOverMaximum(announced: 101, maximum: 100)),
        (BodySizeLimit(maximum: 100, ratio: nil), 60, 41, .announcedOverMaximum(announced: 101, maximum: 100)),
        (BodySizeLimit(maximum: 100, ratio: nil), -1, 0, .within),
        (BodySizeLimit(maximum: nil, ratio: 1000), Int64.max, 0, .within),
        (BodySizeLimit(maximum: 100, ratio: nil), Int64.max, 5, .announcedOverMaximum(announced: .max, maximum: 100)),
    ] as [(BodySizeLimit, Int64, Int64, BodySizeLimit.Verdict)])
    func announcedLength(_ limit: BodySizeLimit, _ announced: Int64, _ stored: Int64, _ verdict: BodySizeLimit.Verdict) {
        #expect(limit.check(announced: announced, alreadyStored: stored) == verdict)
    }

    @Test(arguments: [
        // The maximum counts what is stored, decoded or not.
        (BodySizeLimit(maximum: 100, ratio: nil), Int64(100), Int64(1), false, BodySizeLimit.Verdict.within),
        (BodySizeLimit(maximum: 100, ratio: nil), 101, 101, false, .overMaximum(maximum: 100)),
        (BodySizeLimit(maximum: 100, ratio: 1000), 101, 1, true, .overMaximum(maximum: 100)),
        // The ratio only once 10 MiB are decoded, and only for decoded bodies.
        (BodySizeLimit(maximum: nil, ratio: 1000), 10 * mib, 1, true, .within),
        (BodySizeLimit(maximum: nil, ratio: 1000), 10 * mib + 1, 10_000, true, .bomb(decoded: 10 * mib + 1, wire: 10_000, ratio: 1000)),
        (BodySizeLimit(maximum: nil, ratio: 1000), 10 * mib + 1, 10_000, false, .within),
        (BodySizeLimit(maximum: nil, ratio: 1000), 100 * mib, 200_000, true, .within),
        (BodySizeLimit(maximum: nil, ratio: 1000), 2048 * mib, 2 * mib, true, .bomb(decoded: 2048 * mib, wire: 2 * mib, ratio: 1000)),
        (BodySizeLimit(maximum: nil, ratio: 1000), 11 * mib, 0, true, .bomb(decoded: 11 * mib, wire: 0, ratio: 1000)),
        // The default: repetitive logs (about 170:1) pass, a gzip -9 bomb (1,028:1) does not.
        (BodySizeLimit(maximum: nil, ratio: BodySizeLimit.defaultRatio), 100 * mib, 100 * mib / 170, true, .within),
        (BodySizeLimit(maximum: nil, ratio: BodySizeLimit.defaultRatio), 100 * mib, 100 * mib / 1028, true,
         .bomb(decoded: 100 * mib, wire: 100 * mib / 1028, ratio: 500)),
        // No ratio (an explicit maximum was given): a bomb is bounded by the maximum only.
        (BodySizeLimit(maximum: nil, ratio: nil), 2048 * mib, 2 * mib, true, .within),
        (BodySizeLimit(maximum: 4096 * mib, ratio: nil), 2048 * mib, 2 * mib, true, .within),
        (BodySizeLimit(maximum: nil, ratio: 0), 2048 * mib, 1, true, .within),
    ] as [(BodySizeLimit, Int64, Int64, Bool, BodySizeLimit.Verdict)])
    func storedBytes(_ limit: BodySizeLimit, _ stored: Int64, _ wire: Int64, _ decoding: Bool, _ verdict: BodySizeLimit.Verdict) {
        #expect(limit.check(stored: stored, wire: wire, decoding: decoding) == verdict)
    }

    @Test func messagesSayWhatHappened() {
        #expect(BodySizeLimit.Verdict.within.message == nil)
        #expect(BodySizeLimit.Verdict.announcedOverMaximum(announced: 101, maximum: 100).message!.contains("maximum file size exceeded"))
        #expect(BodySizeLimit.Verdict.overMaximum(maximum: 100).message!.contains("past the maximum of 100 bytes"))
        let bomb = BodySizeLimit.Verdict.bomb(decoded: 20_000_000, wire: 19_000, ratio: 1000).message!
        #expect(bomb.contains("decompression bomb") && bomb.contains("--max-filesize"), "\(bomb)")
    }
}
