import Testing
@testable import TransferKit

/// The stale-connection machine alone (DECISIONS 179): a hop's failure in, resend or fail out.
/// `StaleConnectionRetryTests` drives the same rule through real servers.
@Suite struct StaleConnectionRetryMachineTests {
    /// A GET whose h2 stream ended with its connection before any of its response.
    func closedUnderIt(_ change: (inout StaleConnectionRetry.Failure) -> Void = { _ in }) -> StaleConnectionRetry.Failure {
        var f = StaleConnectionRetry.Failure(curlCode: 92, isHTTP: true, reusedConnection: true, responseStarted: false,
                                             method: "GET", replayableBody: true, failedByConnection: true)
        change(&f)
        return f
    }

    @Test func aRequestThatMetAClosedConnectionIsSentOnceMore() {
        var m = StaleConnectionRetry()
        #expect(m.hopFailed(closedUnderIt()) == .sendAgain)
        #expect(m.state == .resending)
        m.hopEnded()
        #expect(m.state == .spent)
        // The resend failed the same way: that failure is the task's.
        #expect(m.hopFailed(closedUnderIt()) == .fail)
        #expect(m.state == .spent)
    }

    /// Until its hop ends, the resend is in flight: a second failure report for the same hop
    /// does not make a third request.
    @Test func aResendInFlightIsNotMadeTwice() {
        var m = StaleConnectionRetry()
        #expect(m.hopFailed(closedUnderIt()) == .sendAgain)
        #expect(m.hopFailed(closedUnderIt()) == .fail)
        #expect(m.state == .resending)
    }

    /// A hop that ends without failing spends nothing: the one resend is still there later.
    @Test func aHopThatEndsWellKeepsTheResend() {
        var m = StaleConnectionRetry()
        m.hopEnded()
        #expect(m.state == .unused)
        #expect(m.hopFailed(closedUnderIt()) == .sendAgain)
    }

    @Test func everyConnectionClosedCodeQualifies() {
        for code in [52, 55, 56, 16, 92, 18] {
            var m = StaleConnectionRetry()
            #expect(m.hopFailed(closedUnderIt { $0.curlCode = code }) == .sendAgain, "code \(code)")
        }
    }

    /// Each condition alone keeps the request from going out again.
    @Test func anyConditionUnmetFails() {
        let unmet: [(String, (inout StaleConnectionRetry.Failure) -> Void)] = [
            ("a timeout, not a close", { $0.curlCode = 28 }),
            ("not HTTP", { $0.isHTTP = false }),
            ("a new connection", { $0.reusedConnection = false }),
            ("the server began its answer", { $0.responseStarted = true }),
            ("POST is not idempotent", { $0.method = "POST" }),
            ("PATCH is not idempotent", { $0.method = "PATCH" }),
            ("a stream body cannot be replayed", { $0.replayableBody = false }),
            ("the task's own side ended it", { $0.failedByConnection = false }),
        ]
        for (why, change) in unmet {
            var m = StaleConnectionRetry()
            #expect(m.hopFailed(closedUnderIt(change)) == .fail, "\(why)")
            #expect(m.state == .unused, "\(why)")
        }
    }

    @Test func methodsAreComparedWithoutCase() {
        var m = StaleConnectionRetry()
        #expect(m.hopFailed(closedUnderIt { $0.method = "put" }) == .sendAgain)
    }
}
