import Digest
import Foundation

/// The HTTP cache in the task life cycle (DECISIONS 102-104). Before a task's
/// first hop: the policy and the stored response decide (`CacheRules.decide`) between the
/// stored response (no request sent: `.localCache`), a conditional request, the network, or
/// a failure (returnCacheDataDontLoad). A 304 to our conditional request turns into the stored
/// response with its headers updated, its body delivered after the hop (`revalidated`). A
/// storable 200 has its body copied as it arrives and is stored when the hop ends, through
/// the data delegate's `willCacheResponse` when it has one.
///
/// Holds the session's cache and the configuration values it needs; the engine has one when
/// the configuration has a `urlCache`. Used on the transfer thread only.
struct CacheParticipation {
    let urlCache: TransferURLCache
    /// The configuration's `httpAdditionalHeaders`, `credential`, `netrc` (whether set),
    /// `redirectsKeepCredentials` and `requestCachePolicy`.
    let additionalHeaders: [HTTPHeader]
    let credential: TransferCredential?
    let usesNetrc: Bool
    let redirectsKeepCredentials: Bool
    let defaultPolicy: RequestCachePolicy
    /// The engine's clock: a hop's start as a date.
    let clock: Monotonic

    /// nil when the configuration has no cache.
    init?(configuration: TransferConfiguration, clock: Monotonic) {
        guard let cache = configuration.urlCache else { return nil }
        urlCache = cache
        additionalHeaders = configuration.httpAdditionalHeaders
        credential = configuration.credential
        usesNetrc = configuration.netrc != nil
        redirectsKeepCredentials = configuration.redirectsKeepCredentials
        defaultPolicy = configuration.requestCachePolicy
        self.clock = clock
    }

    /// The headers the hop sends as far as a cache is concerned: the request's, the session's,
    /// and an `Authorization` standing for credentials libcurl adds itself (`-u`, netrc), so a
    /// credentialed response is stored only when it says it may be (RFC 9111 3.5).
    func requestHeaders(_ t: Transfer) -> [HTTPHeader] {
        let allowed = RedirectPolicy.credentialsAllowed(origin: t.task.originalRequest.url, hop: t.request.url,
                                                        trusted: redirectsKeepCredentials)
        return Self.requestHeaders(t.request.headers, additional: additionalHeaders, credential: allowed ? credential : nil,
                                   usesNetrc: usesNetrc, host: t.request.url.host)
    }

    /// `requestHeaders` as a pure function: `credential` is the configuration's where the hop
    /// may carry it, else nil.
    static func requestHeaders(_ request: [HTTPHeader], additional: [HTTPHeader], credential: TransferCredential?,
                               usesNetrc: Bool, host: String?) -> [HTTPHeader] {
        var headers = request
        for h in additional where headers.first(named: h.name) == nil { headers.append(h) }
        if headers.first(named: "Authorization") == nil {
            // Which credentials (a digest, never the password): a Vary: Authorization response
            // stored for one user is not another's.
            if let c = credential {
                headers.append(HTTPHeader("Authorization", "(credentials \(SHA256.hex(utf8: c.user + ":" + c.password)))"))
            } else if usesNetrc {
                headers.append(HTTPHeader("Authorization", "(netrc \(host ?? ""))"))
            }
        }
        return headers
    }

    /// Decides, before the first hop's handle is made; nil: no cache takes part.
    func decide(_ t: Transfer) -> CacheDecision? {
        guard t.hop == 0, t.resumeFrom == nil, t.task.upload == nil,
              t.request.httpMethod.uppercased() == "GET",
              t.request.value(forHTTPHeaderField: "Range") == nil,
              t.request.value(forHTTPHeaderField: "If-None-Match") == nil,
              t.request.value(forHTTPHeaderField: "If-Modified-Since") == nil
        else { return nil }
        let headers = requestHeaders(t)
        var probe = t.request
        probe.headers = headers
        let stored = urlCache.cachedResponse(for: probe)
        let decision = CacheRules.decide(policy: t.request.cachePolicy ?? defaultPolicy,
                                         stored: stored?.facts, requestHeaders: headers, now: Date().timeIntervalSince1970)
        switch (decision, stored) {
        case (.useStored, let stored?): t.cache = .serveStored(stored)
        case (.revalidate, let stored?): t.cache = .revalidating(stored)
        default: t.cache = .none
        }
        return decision
    }

    /// The validators of a revalidating first hop (added to its headers).
    static func conditionalHeaders(_ t: Transfer) -> [HTTPHeader] {
        guard case .revalidating(let stored) = t.cache, t.hop == 0 else { return [] }
        return stored.facts.conditionalHeaders
    }

    /// Delivers the stored response without sending anything: the same path as a response
    /// from libcurl (the engine's `headComplete`, disposition, body, then `finish`), with a
    /// `.localCache` transaction.
    func serve(_ t: Transfer, headComplete: (Transfer) -> Void, finish: (TransferError?) -> Void) {
        guard case .serveStored(let stored) = t.cache else { return }
        t.statusCode = stored.statusCode
        t.responseHeaders = stored.headers
        t.firstHeaderAt = Monotonic.now()
        headComplete(t)
        let body = stored.body
        let n = body.withUnsafeBytes { t.receiveBody($0) }
        if n != body.count, t.sinkFailure == nil {
            t.sinkFailure = TransferError(.cannotWriteToFile, "the cached response could not be delivered",
                                          failingURL: Redaction.redactURL(t.request.url.absoluteString))
        }
        let status = stored.statusCode, headers = stored.headers, end = clock.date(Monotonic.now())
        TransactionRecorder.update(t) { m in
            m.statusCode = status
            m.responseHeaders = headers
            m.resourceFetchType = .localCache
            m.responseEndDate = end
            m.currentPhase = .done
        }
        finish(t.sinkFailure)
    }

    /// From the response head (before redirects are considered): a 304 to our validators
    /// becomes the stored response; a storable response starts being copied.
    func responseHead(_ t: Transfer) {
        t.cacheCapture = nil
        let method = t.request.httpMethod.uppercased()
        if method != "GET" && method != "HEAD" {
            // RFC 9111 4.4: an unsafe request that succeeded invalidates what is stored.
            if (200..<400).contains(t.statusCode) {
                var get = t.request
                get.httpMethod = "GET"
                urlCache.removeCachedResponse(for: get)
            }
            return
        }
        if case .revalidating(let stored) = t.cache, t.hop == 0, t.statusCode == 304 {
            t.responseHeaders = stored.facts.updated(with: t.responseHeaders)
            t.statusCode = stored.statusCode
            t.cache = .revalidated(stored)
            return
        }
        guard t.resumeFrom == nil,
              CacheRules.isStorable(method: method, requestHeaders: requestHeaders(t), statusCode: t.statusCode,
                                    responseHeaders: t.responseHeaders)
        else { return }
        if let length = t.responseHeaders.first(named: "Content-Length").flatMap({ Int($0) }), length > urlCache.maximumEntryBytes { return }
        t.cacheCapture = Data()
    }

    /// Body bytes of a response being copied; past the cache's entry limit the copy is dropped.
    func capture(_ t: Transfer, _ bytes: UnsafeRawBufferPointer) {
        if (t.cacheCapture?.count ?? 0) + bytes.count > urlCache.maximumEntryBytes {
            t.cacheCapture = nil
            return
        }
        t.cacheCapture?.append(contentsOf: bytes)
    }

    /// A hop ended well: a revalidated response gets the stored body; a copied one is stored.
    func complete(_ t: Transfer) {
        let cache = urlCache
        let now = Date().timeIntervalSince1970
        let requestTime = clock.date(t.hopStart).timeIntervalSince1970
        if case .revalidated(var stored) = t.cache {
            t.cache = .none
            stored.headers = t.responseHeaders.filter { !CacheRules.unstoredHeaders.contains($0.name.lowercased()) }
            stored.requestTime = min(requestTime, now)
            stored.responseTime = now
            cache.storeCachedResponse(stored, for: t.request)
            let body = stored.body
            let n = body.withUnsafeBytes { t.receiveBody($0) }
            if n != body.count, t.sinkFailure == nil {
                t.sinkFailure = TransferError(.cannotWriteToFile, "the cached body could not be delivered",
                                              failingURL: Redaction.redactURL(t.request.url.absoluteString))
            }
            TransactionRecorder.update(t) { m in
                m.statusCode = 304
                m.isRevalidated = true
            }
            return
        }
        guard let body = t.cacheCapture else { return }
        t.cacheCapture = nil
        let names = CacheRules.varyNames(t.responseHeaders) ?? []
        let entry = CachedResponse(url: TransferURLCache.key(t.request.url), statusCode: t.statusCode,
                                   headers: t.responseHeaders.filter { !CacheRules.unstoredHeaders.contains($0.name.lowercased()) },
                                   requestTime: min(requestTime, now), responseTime: now, varyNames: names,
                                   varyValues: CacheRules.varyValues(names, of: requestHeaders(t)), body: body)
        var sent = t.request
        sent.headers = requestHeaders(t)
        let request = sent
        let session = t.task.session
        if t.sink == .delegate, let dataTask = t.task as? TransferDataTask,
           let delegate = session.delegate as? any TransferDataDelegate {
            // Before the task's completion, which is queued after this on the same queue.
            session.deliver {
                session.emit(.delegateCallback("willCacheResponse"), task: dataTask, detail: "\(body.count) bytes")
                delegate.session(session, dataTask: dataTask, willCacheResponse: entry) { chosen in
                    if let chosen { cache.storeCachedResponse(chosen, for: request) }
                }
            }
        } else {
            cache.storeCachedResponse(entry, for: request)
        }
    }

    static func missError(_ t: Transfer) -> TransferError {
        TransferError(.resourceUnavailable, "not in the cache, and the cache policy (returnCacheDataDontLoad) sends nothing",
                      failingURL: Redaction.redactURL(t.request.url.absoluteString))
    }
}
