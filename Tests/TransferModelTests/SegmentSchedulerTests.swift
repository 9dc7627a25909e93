import Digest
import Foundation
import Testing
import TransferModel

/// The order of a segmented upload, as a pure function of what the caller reports.
@Suite struct SegmentSchedulerTests {
    /// Starts everything that may start at `now`.
    private func startAll(_ s: inout SegmentScheduler, now: Double = 0) -> [Int] {
        var out: [Int] = []
        while let i = s.next(now: now) { out.append(i) }
        return out
    }

    @Test func neverMoreThanTheLimitInFlight() {
        var s = SegmentScheduler(count: 10, maxInFlight: 3)
        #expect(startAll(&s) == [0, 1, 2])
        #expect(s.inFlight == 3)
        s.finished(1, ok: true, now: 0)
        #expect(startAll(&s) == [3])
        #expect(s.inFlight == 3)
    }

    @Test func aFailedSegmentGoesBehindTheQueuedOnesAndWaitsForItsBackOff() {
        var s = SegmentScheduler(count: 4, maxInFlight: 1, backoffBase: 1)
        #expect(startAll(&s) == [0])
        s.finished(0, ok: false, now: 10)
        #expect(s.states[0] == .retrying)
        // 1, 2 and 3 were queued behind it: they go first.
        var order: [Int] = []
        for _ in 0..<3 {
            let i = s.next(now: 10)!
            order.append(i)
            s.finished(i, ok: true, now: 10)
        }
        #expect(order == [1, 2, 3])
        // Segment 0 may start again at 11 (1 s after its first failure), not before.
        #expect(s.next(now: 10.5) == nil)
        #expect(s.nextWake(now: 10.5) == 11)
        #expect(s.next(now: 11) == 0)
        #expect(s.attempts[0] == 2)
        s.finished(0, ok: true, now: 11)
        #expect(s.isFinished && s.isComplete)
    }

    @Test func backOffDoublesUpToTheCap() {
        let s = SegmentScheduler(count: 1, maxInFlight: 1, backoffBase: 0.25, backoffCap: 1)
        #expect((1...5).map { s.backoff(afterFailures: $0) } == [0.25, 0.5, 1, 1, 1])
    }

    @Test func theLastAllowedFailureEndsTheUpload() {
        var s = SegmentScheduler(count: 3, maxInFlight: 2, maxAttempts: 2, backoffBase: 0)
        #expect(startAll(&s) == [0, 1])
        s.finished(1, ok: false, now: 0)
        #expect(startAll(&s) == [2])
        s.finished(2, ok: true, now: 0)
        #expect(startAll(&s) == [1])
        s.finished(1, ok: false, now: 0)
        #expect(s.exhausted == 1 && s.states[1] == .failed)
        #expect(s.next(now: 0) == nil)  // nothing new starts; segment 0 may still end
        #expect(!s.isFinished)
        s.finished(0, ok: true, now: 0)
        #expect(s.isFinished && !s.isComplete)
    }

    @Test func segmentsAnEarlierRunStoredAreNotSent() {
        var s = SegmentScheduler(count: 5, maxInFlight: 5, done: [0, 2])
        #expect(startAll(&s) == [1, 3, 4])
        #expect(s.doneSegments == [0, 2])
    }

    @Test func aReportAboutASegmentNotInFlightChangesNothing() {
        var s = SegmentScheduler(count: 2, maxInFlight: 1)
        let before = s
        s.finished(1, ok: true, now: 0)
        #expect(s == before)
    }

    @Test func layoutRangesAndHeaders() {
        let l = SegmentLayout(totalSize: 10, segmentSize: 4)
        #expect(l.count == 3)
        #expect((0..<3).map(l.offset) == [0, 4, 8])
        #expect((0..<3).map(l.length) == [4, 4, 2])
        #expect((0..<3).map(l.contentRange) == ["bytes 0-3/10", "bytes 4-7/10", "bytes 8-9/10"])
        let empty = SegmentLayout(totalSize: 0, segmentSize: 4)
        #expect(empty.count == 1 && empty.length(0) == 0 && empty.contentRange(0) == "bytes */0")
        // RFC 9530's example value for an empty body's sha-256.
        #expect(SegmentLayout.contentDigest(sha256: SHA256.digest(Data()))
                == "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:")
    }

    @Test func theMapShowsEachSegmentOrTheMostPressingOfAGroup() {
        let states: [SegmentScheduler.State] = [.done, .done, .inFlight, .waiting, .retrying, .done]
        #expect(SegmentMap.render(states, width: 10) == "##>.!#")
        #expect(SegmentMap.render(states, width: 3) == "#>!")
        #expect(SegmentMap.render([.done, .failed], width: 1) == "x")
        #expect(SegmentMap.render([], width: 5) == "")
    }

    /// Decision 106: the layout's arithmetic near `Int64.max` (a sparse file) neither traps nor
    /// wraps; a segment past the end has no bytes.
    @Test(arguments: [
        // (total, segment size, count, last segment's offset, last segment's length)
        (Int64(0), Int64(64), 1, Int64(0), Int64(0)),
        (Int64(1), Int64(64), 1, Int64(0), Int64(1)),
        (Int64(128), Int64(64), 2, Int64(64), Int64(64)),
        (Int64(129), Int64(64), 3, Int64(128), Int64(1)),
        (Int64.max, Int64(4) << 30, Int((Int64.max / (4 << 30)) + 1), Int64.max / (4 << 30) * (4 << 30), Int64.max % (4 << 30)),
        (Int64.max, Int64.max, 1, Int64(0), Int64.max),
        (Int64.max - 1, Int64.max, 1, Int64(0), Int64.max - 1),
    ])
    func theLayoutsArithmeticDoesNotOverflow(total: Int64, size: Int64, count: Int, lastOffset: Int64, lastLength: Int64) {
        let layout = SegmentLayout(totalSize: total, segmentSize: size)
        #expect(layout.count == count)
        #expect(layout.offset(count - 1) == lastOffset)
        #expect(layout.length(count - 1) == lastLength)
        #expect(layout.length(count) == 0)
        #expect(layout.offset(Int.max) == total)
        #expect(layout.length(Int.max) == 0)
        #expect(layout.length(-1) == 0)
        if lastLength > 0 {
            #expect(layout.contentRange(count - 1) == "bytes \(lastOffset)-\(lastOffset + lastLength - 1)/\(total)")
        }
    }

    /// The segment cap: the smallest segment size that fits, and that it does fit.
    @Test(arguments: [
        (Int64(100_000), Int64(1)), (Int64(100_001), Int64(2)), (Int64(0), Int64(1)),
        (Int64(1) << 40, Int64(10_995_117)), (Int64.max, Int64(92_233_720_368_548)),
    ])
    func theSmallestSegmentSizeThatFitsTheCap(total: Int64, smallest: Int64) {
        #expect(SegmentLayout.smallestSegmentSize(for: total) == smallest)
        #expect(SegmentLayout(totalSize: total, segmentSize: smallest).fitsSegmentLimit)
        if smallest > 1 { #expect(!SegmentLayout(totalSize: total, segmentSize: smallest - 1).fitsSegmentLimit) }
    }
}
