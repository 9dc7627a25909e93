import CCurl

/// `waitsForConnectivity` (URLSessionConfiguration, DECISIONS 66): a hop that could
/// not reach the server does not fail the task; the delegate hears
/// `taskIsWaitingForConnectivity` once and the hop is tried again, with a doubling pause,
/// until it connects or `timeoutIntervalForResource` runs out (then `.timedOut`, as Apple's).
/// Linux has no reachability monitor to wake us when a network appears, so "waiting" is
/// retrying: the first retry after 100 ms, the pause doubling to 2 s.
///
/// Holds the waiting transfers; the engine retries or fails those it returns as due. Used on
/// the transfer thread only.
struct ConnectivityRetry {
    static let firstPause: UInt64 = 100_000_000
    static let longestPause: UInt64 = 2_000_000_000

    /// The configuration's `waitsForConnectivity`.
    let enabled: Bool
    /// Transfers pausing before another connection attempt.
    private(set) var waiters: [ObjectIdentifier: Transfer] = [:]

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// The pause before the next attempt after `retries` earlier ones: 100 ms, doubling, at
    /// most 2 s.
    static func pause(afterRetries retries: Int) -> UInt64 {
        min(longestPause, firstPause << min(max(retries, 0), 5))
    }

    /// Failures of not reaching the server (or its proxy): the ones worth waiting out.
    static func isUnreachable(_ code: CURLcode) -> Bool {
        code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY
    }

    /// Takes over a hop that failed before reaching the server: when to try it again, or nil
    /// to leave the failure as it is. The first time, the delegate hears that the task waits.
    mutating func wait(_ t: Transfer, code: CURLcode, now: UInt64) -> UInt64? {
        guard enabled, t.sinkFailure == nil, Self.isUnreachable(code) else { return nil }
        let pause = Self.pause(afterRetries: t.connectivityRetries)
        t.connectivityRetries += 1
        t.connectivityRetryAt = now &+ pause
        waiters[ObjectIdentifier(t)] = t
        if t.connectivityRetries == 1 {
            let task = t.task, session = task.session
            if let delegate = session.delegate as? any TransferTaskDelegate {
                session.deliver {
                    session.emit(.delegateCallback("taskIsWaitingForConnectivity"), task: task)
                    delegate.session(session, taskIsWaitingForConnectivity: task)
                }
            }
        }
        return t.connectivityRetryAt
    }

    enum Due {
        /// The pause is over: the hop starts again.
        case retry(Transfer)
        /// Past the resource deadline while waiting: the task fails.
        case timedOut(Transfer)
    }

    /// From the timer scan: the waiters whose pause is over or whose resource deadline passed
    /// (both leave the waiters), and the earliest next event of the rest. Visits only the
    /// waiting transfers. `isCurrent`: the transfer is still its task's; `resourceDeadline`:
    /// nil while the task is suspended.
    mutating func due(now: UInt64, isCurrent: (Transfer) -> Bool,
                      resourceDeadline: (Transfer) -> UInt64?) -> (due: [Due], next: UInt64) {
        var due: [Due] = []
        var next = UInt64.max
        for (id, t) in waiters {
            // Finished, cancelled, or already restarted by a resume: no longer waiting here.
            guard isCurrent(t), t.flow.isDetached else {
                waiters.removeValue(forKey: id)
                continue
            }
            // Suspended: no retry and no timeout (resume restarts the hop at once).
            guard let resource = resourceDeadline(t) else { continue }
            if now >= resource {
                waiters.removeValue(forKey: id)
                due.append(.timedOut(t))
                continue
            }
            if now >= t.connectivityRetryAt {
                waiters.removeValue(forKey: id)
                due.append(.retry(t))
                continue
            }
            next = min(next, t.connectivityRetryAt, resource)
        }
        return (due, next)
    }

    mutating func removeAll() {
        waiters.removeAll()
    }
}
