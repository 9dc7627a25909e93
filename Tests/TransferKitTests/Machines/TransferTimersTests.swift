import Testing
@testable import TransferKit

/// The engine's two timeouts as arithmetic: times are plain numbers of nanoseconds.
@Suite struct TransferTimersTests {
    let second: UInt64 = 1_000_000_000

    func deadlines(running: Bool = true, leftQueue: Bool = true, lastActivity: UInt64 = 0, suspended: UInt64 = 0,
                   request: Double = 60, resource: Double = 600) -> TransferTimers.Deadlines? {
        TransferTimers.deadlines(timersRun: running, leftQueue: leftQueue, lastActivity: lastActivity, taskStart: 0,
                                 suspendedTotal: suspended, requestTimeout: request, resourceTimeout: resource)
    }

    @Test func theIdleTimerCountsFromTheLastActivity() {
        let d = deadlines(lastActivity: 5 * second)!
        #expect(d.idle == 65 * second)
        #expect(TransferTimers.expiry(d, now: 64 * second) == nil)
        #expect(TransferTimers.expiry(d, now: 65 * second) == .idle)
    }

    @Test func aQueuedHopHasOnlyTheResourceTimer() {
        let d = deadlines(leftQueue: false)!
        #expect(d.idle == nil && d.resource == 600 * second)
        #expect(TransferTimers.expiry(d, now: 600 * second) == .resource)
    }

    @Test func timeSuspendedDoesNotCountAgainstTheResource() {
        #expect(deadlines(suspended: 30 * second)!.resource == 630 * second)
    }

    @Test func noTimerRunsWhileStopped() {
        #expect(deadlines(running: false) == nil)
    }

    @Test func aZeroRequestTimeoutMeansNoIdleTimer() {
        #expect(deadlines(request: 0)!.idle == nil)
    }

    @Test func hugeTimeoutsSaturateInsteadOfTrapping() {
        let d = deadlines(lastActivity: .max - 1, suspended: .max, request: .infinity, resource: 1e300)!
        #expect(d.idle == .max && d.resource == .max)
        #expect(TransferTimers.expiry(d, now: .max - 2) == nil)
    }

    @Test func idleWinsWhenBothFire() {
        let d = TransferTimers.Deadlines(idle: 1, resource: 1)
        #expect(TransferTimers.expiry(d, now: 1) == .idle)
    }

    @Test func messagesNameTheSettingAndItsValue() {
        #expect(TransferTimers.message(.idle, requestTimeout: 60, resourceTimeout: 1) == "no data for 60 s (timeoutIntervalForRequest)")
        #expect(TransferTimers.message(.resource, requestTimeout: 1, resourceTimeout: 0.25)
                == "the task took longer than 0.25 s (timeoutIntervalForResource)")
    }
}
