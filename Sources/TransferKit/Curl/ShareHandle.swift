import CCurl

/// A session's share handle: DNS cache and TLS session tickets (never the connection cache,
/// which is not thread-safe to share in 7.88 — KNOWN_BUGS 11.11). Cookies are TransferKit's
/// own (`TransferCookieStorage`), never libcurl's cookie engine. Lock callbacks are real locks although one thread uses it.
final class ShareHandle {
    let raw: UnsafeMutableRawPointer
    private let locks: UnsafeMutablePointer<pthread_mutex_t>
    private static let lockCount = 16

    init?() {
        guard CurlGlobal.ready, let s = curl_share_init() else { return nil }
        raw = s
        locks = .allocate(capacity: Self.lockCount)
        for i in 0..<Self.lockCount { pthread_mutex_init(locks + i, nil) }
        _ = tk_share_set_locks(raw, { _, data, _, ctx in
            let l = ctx!.assumingMemoryBound(to: pthread_mutex_t.self)
            pthread_mutex_lock(l + Int(data.rawValue) % ShareHandle.lockCount)
        }, { _, data, ctx in
            let l = ctx!.assumingMemoryBound(to: pthread_mutex_t.self)
            pthread_mutex_unlock(l + Int(data.rawValue) % ShareHandle.lockCount)
        }, UnsafeMutableRawPointer(locks))
        _ = tk_share_setopt_long(raw, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
        _ = tk_share_setopt_long(raw, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
    }

    deinit {
        curl_share_cleanup(raw)
        for i in 0..<Self.lockCount { pthread_mutex_destroy(locks + i) }
        locks.deallocate()
    }
}
