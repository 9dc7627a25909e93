import CCurl
import Foundation

/// `waitsForConnectivity` (ConnectivityRetry.swift): the engine's part is to note the retry
/// time in its deadline and to perform what the waiters' schedule says is due.
extension TransferEngine {
    /// Takes over a hop that failed before reaching the server; false leaves the failure as is.
    func waitForConnectivityIfAsked(_ t: Transfer, code: CURLcode) -> Bool {
        guard let retryAt = connectivity.wait(t, code: code, now: timerNow) else { return false }
        nextDeadline = min(nextDeadline, retryAt)
        return true
    }

    /// From the timer scan: retries the waiters whose pause is over, fails those past the
    /// resource deadline. Returns the earliest next event.
    func retryConnectivityWaiters(now: UInt64) -> UInt64 {
        let (due, next) = connectivity.due(now: now, isCurrent: { transfers[ObjectIdentifier($0.task)] === $0 },
                                           resourceDeadline: { deadlines($0)?.resource })
        for step in due {
            switch step {
            case .timedOut(let t):
                let url = Redaction.redactURL(t.request.url.absoluteString)
                finish(t, error: TransferError(.timedOut, "no connection within \(TransferTimers.formatSeconds(configuration.timeoutIntervalForResource)) (timeoutIntervalForResource, waitsForConnectivity)", failingURL: url))
            case .retry(let t):
                sendAgain(t)
            }
        }
        return next
    }
}
