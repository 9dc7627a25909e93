import Testing
@testable import TransferKit

/// The live phase of a running hop from the facts it has reached (no libcurl, no clock).
@Suite struct TransactionRecorderTests {
    @Test func theLatestFactReachedNamesThePhase() {
        func phase(header: Bool = false, request: Bool = false, sending: Bool = false, dequeued: Bool = false,
                   connected: Bool = false, resolved: Bool = false) -> TransactionPhase {
            TransactionRecorder.livePhase(headerSeen: header, requestStarted: request, sendingBody: sending,
                                          dequeued: dequeued, connected: connected, resolved: resolved)
        }
        #expect(phase() == .queued)
        #expect(phase(dequeued: true) == .dns)
        #expect(phase(dequeued: true, resolved: true) == .connect)
        #expect(phase(dequeued: true, connected: true, resolved: true) == .tls)
        #expect(phase(request: true, dequeued: true, connected: true) == .wait)
        #expect(phase(request: true, sending: true, dequeued: true) == .request)
        #expect(phase(header: true, request: true, sending: true, dequeued: true) == .receive)
    }

    @Test func libcurlsFactsAreReadOnlyWhenTheyDecide() {
        var asked = 0
        func fact(_ value: Bool) -> Bool {
            asked += 1
            return value
        }
        _ = TransactionRecorder.livePhase(headerSeen: true, requestStarted: true, sendingBody: fact(true),
                                          dequeued: true, connected: fact(true), resolved: fact(true))
        #expect(asked == 0)
        #expect(TransactionRecorder.livePhase(headerSeen: false, requestStarted: false, sendingBody: fact(true),
                                              dequeued: true, connected: fact(false), resolved: fact(true)) == .connect)
        #expect(asked == 2)
    }

    @Test func aZeroPortIsNone() {
        #expect(TransactionRecorder.nonZero(0) == nil)
        #expect(TransactionRecorder.nonZero(443) == 443)
    }
}
