import Testing
import TransferModel
@testable import TransferKit

/// Scripts of suspend, resume and a failed hop, and what the held-connection machine decides:
/// a resumed download whose idle connection the server closed continues, once, from resume
/// data; everything else fails as it always did.
@Suite struct HeldConnectionTests {
    /// The failure a dead connection gives a resumable HTTP download.
    func lost(_ change: (inout HeldConnection.Failure) -> Void = { _ in }) -> HeldConnection.Failure {
        var f = HeldConnection.Failure(code: .networkConnectionLost, isDownload: true, isHTTP: true, resumable: true)
        change(&f)
        return f
    }

    /// Suspended with its connection paused, then resumed.
    func resumedAfterPause() -> HeldConnection {
        var m = HeldConnection()
        m.suspended(pausedConnection: true)
        m.resumed()
        return m
    }

    @Test func aResumedDownloadWhoseConnectionDiedContinuesOnce() {
        var m = HeldConnection()
        #expect(m.state == .fresh)
        m.suspended(pausedConnection: true)
        #expect(m.state == .held)
        m.resumed()
        #expect(m.state == .resumed)
        #expect(m.hopFailed(lost()) == .continueFromResumeData)
        #expect(m.state == .fresh)
        // The continuation's own failure (no suspend in between) fails the task.
        m.hopBegan()
        #expect(m.hopFailed(lost()) == .fail)
    }

    @Test func anotherSuspendOnTheContinuationAllowsAnotherContinuation() {
        var m = resumedAfterPause()
        #expect(m.hopFailed(lost()) == .continueFromResumeData)
        m.hopBegan()
        m.suspended(pausedConnection: true)
        m.resumed()
        #expect(m.hopFailed(lost()) == .continueFromResumeData)
    }

    @Test func aConnectionLostWithoutASuspendFails() {
        var m = HeldConnection()
        #expect(m.hopFailed(lost()) == .fail)
    }

    @Test func aFailureWhileStillSuspendedFails() {
        var m = HeldConnection()
        m.suspended(pausedConnection: true)
        #expect(m.hopFailed(lost()) == .fail)
        #expect(m.state == .fresh)
    }

    @Test func aSuspendThatPausedNoConnectionMeetsNoDeadConnection() {
        // Queued, or not connected yet: the hop starts again on resume with a new connection.
        var m = HeldConnection()
        m.suspended(pausedConnection: false)
        m.resumed()
        #expect(m.state == .fresh)
        #expect(m.hopFailed(lost()) == .fail)
    }

    @Test func aNewHopForgetsTheHeldConnection() {
        var m = HeldConnection()
        m.suspended(pausedConnection: true)
        m.hopBegan()
        m.resumed()
        #expect(m.hopFailed(lost()) == .fail)
    }

    @Test(arguments: [TransferError.Code.timedOut, .cannotConnectToHost, .badServerResponse, .cannotWriteToFile])
    func otherFailuresFail(code: TransferError.Code) {
        var m = resumedAfterPause()
        #expect(m.hopFailed(lost { $0.code = code }) == .fail)
    }

    @Test func onlyResumableHTTPDownloadsContinue() {
        var dataTask = resumedAfterPause()
        #expect(dataTask.hopFailed(lost { $0.isDownload = false }) == .fail)
        var ftp = resumedAfterPause()
        #expect(ftp.hopFailed(lost { $0.isHTTP = false }) == .fail)
        var noResumeData = resumedAfterPause()
        #expect(noResumeData.hopFailed(lost { $0.resumable = false }) == .fail)
    }
}
