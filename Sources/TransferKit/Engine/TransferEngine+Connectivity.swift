import CCurl
import Foundation

/// `waitsForConnectivity` (URLSessionConfiguration, DECISIONS 66): a hop that could
/// not reach the server does not fail the task; the delegate hears
/// `taskIsWaitingForConnectivity` once and the hop is tried again, with a doubling pause,
/// until it connects or `timeoutIntervalForResource` runs out (then `.timedOut`, as Apple's).
/// Linux has no reachability monitor to wake us when a network appears, so "waiting" is
/// retrying: the first retry after 100 ms, the pause doubling to 2 s.
extension TransferEngine {
    static let connectivityFirstPause: UInt64 = 100_000_000
    static let connectivityLongestPause: UInt64 = 2_000_000_000

    /// Takes over a hop that failed before reaching the server; false leaves the failure as is.
    func waitForConnectivityIfAsked(_ t: Transfer, code: CURLcode) -> Bool {
        guard configuration.waitsForConnectivity, t.sinkFailure == nil,
              code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY
        else { return false }
        let pause = min(Self.connectivityLongestPause, Self.connectivityFirstPause << min(t.connectivityRetries, 5))
        t.connectivityRetries += 1
        t.connectivityRetryAt = timerNow &+ pause
        connectivityWaiters[ObjectIdentifier(t)] = t
        nextDeadline = min(nextDeadline, t.connectivityRetryAt)
        if t.connectivityRetries == 1 {
            let task = t.task, session = task.session
            if let delegate = session.delegate as? any TransferTaskDelegate {
                session.deliver {
                    session.emit(.delegateCallback("taskIsWaitingForConnectivity"), task: task)
                    delegate.session(session, taskIsWaitingForConnectivity: task)
                }
            }
        }
        return true
    }

    /// From the timer scan: retries the waiters whose pause is over, fails those past the
    /// resource deadline. Visits only the waiting transfers. Returns the earliest next event.
    func retryConnectivityWaiters(now: UInt64) -> UInt64 {
        var next = UInt64.max
        for (id, t) in connectivityWaiters {
            // Finished, cancelled, or already restarted by a resume: no longer waiting here.
            guard transfers[ObjectIdentifier(t.task)] === t, t.flow.isDetached else {
                connectivityWaiters.removeValue(forKey: id)
                continue
            }
            // Suspended: no retry and no timeout (resume restarts the hop at once).
            guard let d = deadlines(t) else { continue }
            if now >= d.resource {
                connectivityWaiters.removeValue(forKey: id)
                let url = Redaction.redactURL(t.request.url.absoluteString)
                finish(t, error: TransferError(.timedOut, "no connection within \(formatSeconds(configuration.timeoutIntervalForResource)) (timeoutIntervalForResource, waitsForConnectivity)", failingURL: url))
                continue
            }
            if now >= t.connectivityRetryAt {
                connectivityWaiters.removeValue(forKey: id)
                followRedirect(t, t.request, isRedirect: false)
                continue
            }
            next = min(next, t.connectivityRetryAt, d.resource)
        }
        return next
    }
}
