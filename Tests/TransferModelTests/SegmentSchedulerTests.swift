import Foundation
import Testing
import TransferModel

/// Issue 14: the order of a segmented upload, as a pure function of what the caller reports.
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
}
