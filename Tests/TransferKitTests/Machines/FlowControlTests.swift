import Testing
@testable import TransferKit

/// Scripts of events and the actions the flow-control machine returns: no libcurl, no
/// threads, no clock (times are plain numbers).
@Suite struct FlowControlTests {
    /// A transfer in the multi with a connection.
    func connected() -> FlowControl {
        var flow = FlowControl()
        flow.attached()
        flow.connected()
        return flow
    }

    @Test func aNewTransferIsDetachedAndRunning() {
        let flow = FlowControl()
        #expect(flow.placement == .detached)
        #expect(flow.isRunning && !flow.isSuspended)
        #expect(flow.holds.isEmpty && flow.suspendedTotal == 0)
    }

    @Test func suspendWhileConnectedPausesTheHandleAndGivesTheSlotBack() {
        var flow = connected()
        #expect(flow.suspend(now: 10) == [.pauseHandle, .releaseSlot])
        #expect(flow.placement == .connected(.released))
        #expect(flow.isSuspended)
        #expect(flow.resume(now: 25, waitsForDecision: false) == [.retakeSlot, .unpauseHandle])
        #expect(flow.placement == .connected(.counted))
        #expect(flow.suspendedTotal == 15)
    }

    @Test func suspendBeforeAConnectionDetachesAndResumeRestartsTheHop() {
        var flow = FlowControl()
        flow.attached()
        #expect(flow.suspend(now: 1) == [.detach])
        #expect(flow.detached().isEmpty)
        #expect(flow.resume(now: 2, waitsForDecision: false) == [.restartHop])
    }

    @Test func aQueuedTransferStaysQueuedThroughSuspendAndResume() {
        var flow = FlowControl()
        flow.queued()
        #expect(flow.suspend(now: 1).isEmpty)
        #expect(flow.resume(now: 2, waitsForDecision: false).isEmpty)
        #expect(flow.placement == .waiting)
    }

    @Test func aSuspendedTransferTakenOffTheQueueRestartsOnResume() {
        var flow = FlowControl()
        flow.queued()
        _ = flow.suspend(now: 1)
        flow.leftQueue()
        #expect(flow.isDetached)
        #expect(flow.resume(now: 2, waitsForDecision: false) == [.restartHop])
    }

    @Test func suspendAndResumeTwiceAreIgnored() {
        var flow = connected()
        _ = flow.suspend(now: 1)
        #expect(flow.suspend(now: 2).isEmpty)
        _ = flow.resume(now: 3, waitsForDecision: false)
        #expect(flow.resume(now: 4, waitsForDecision: false).isEmpty)
        #expect(flow.suspendedTotal == 2)
    }

    @Test func resumeBetweenHopsWaitsForTheDelegatesAnswer() {
        var flow = FlowControl()
        _ = flow.suspend(now: 1)
        #expect(flow.resume(now: 2, waitsForDecision: true).isEmpty)
        #expect(flow.isRunning)
    }

    @Test func detachingASuspendedConnectedTransferRetakesItsSlot() {
        var flow = connected()
        _ = flow.suspend(now: 1)
        #expect(flow.detached() == [.retakeSlot])
        #expect(flow.isDetached)
        var counted = connected()
        #expect(counted.detached().isEmpty)
    }

    @Test func resumeKeepsBytesHeldForTheDispositionHeld() {
        var flow = connected()
        flow.hold(.disposition)
        _ = flow.suspend(now: 1)
        #expect(flow.resume(now: 2, waitsForDecision: false) == [.retakeSlot])
        #expect(flow.dispositionAnswered() == [.unpauseHandle])
        #expect(flow.dispositionAnswered().isEmpty)
    }

    @Test func theDispositionAnswerWhileSuspendedDoesNotUnpause() {
        var flow = connected()
        flow.hold(.disposition)
        _ = flow.suspend(now: 1)
        #expect(flow.dispositionAnswered().isEmpty)
        #expect(!flow.isHeld(.disposition))
    }

    @Test func drainingUnpausesOnlyWithNoDispositionPending() {
        var flow = connected()
        flow.hold(.backpressure)
        flow.hold(.disposition)
        #expect(flow.drained().isEmpty)
        #expect(!flow.isHeld(.backpressure))
        flow.hold(.backpressure)
        _ = flow.dispositionAnswered()
        #expect(flow.drained() == [.unpauseHandle])
        #expect(flow.drained().isEmpty)
    }

    @Test func aDetachedTransferIsNeverUnpaused() {
        var flow = FlowControl()
        flow.hold(.backpressure)
        #expect(flow.drained().isEmpty)
        flow.hold(.body)
        #expect(flow.bodyReady().isEmpty)
    }

    @Test func bodyBytesUnpauseSendingOnlyWhileReceivingIsHeld() {
        var flow = connected()
        flow.hold(.body)
        #expect(flow.bodyReady() == [.unpauseHandle])
        flow.hold(.body)
        flow.hold(.backpressure)
        #expect(flow.bodyReady() == [.unpauseSendingOnly])
        #expect(flow.bodyReady().isEmpty)
    }

    @Test func aConnectionBeforeAttachIsIgnored() {
        var flow = FlowControl()
        flow.connected()
        #expect(flow.isDetached)
    }
}
