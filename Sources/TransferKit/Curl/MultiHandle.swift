import CCurl

/// One libcurl multi handle: a session's private connection pool (A1, A5).
///
/// Every call except `wakeup()` happens on the transfer thread. `wakeup()` may be called from
/// any thread, but only between init and cleanup, so it is guarded by the same lock that marks
/// the handle closed (A1 fact 2).
final class MultiHandle: @unchecked Sendable {
    // @unchecked: `raw` is used from the transfer thread only, except curl_multi_wakeup,
    // which libcurl allows from any thread and which `closed` keeps away from cleanup.
    let raw: UnsafeMutableRawPointer
    private let closed = Locked(false)

    init?() {
        guard CurlGlobal.ready, let m = curl_multi_init() else { return nil }
        raw = m
    }

    func setLong(_ o: CURLMoption, _ v: Int) { _ = tk_multi_setopt_long(raw, o, v) }

    /// Interrupts a `poll` from another thread. A no-op after `close()`.
    func wakeup() {
        closed.withLock { isClosed in
            if !isClosed { _ = curl_multi_wakeup(raw) }
        }
    }

    /// Runs `body` while the handle is guaranteed open: enqueue and wake atomically. `body`
    /// returns whether the loop needs a wakeup (see `TransferEngine.send`).
    func whileOpen(_ body: () -> Bool) -> Bool {
        closed.withLock { isClosed in
            if isClosed { return false }
            if body() { _ = curl_multi_wakeup(raw) }
            return true
        }
    }

    func close() {
        closed.withLock { isClosed in
            guard !isClosed else { return }
            isClosed = true
            curl_multi_cleanup(raw)
        }
    }
}
