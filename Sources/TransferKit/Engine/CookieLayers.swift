import Foundation

/// Cookies per hop (DECISIONS 100): the session's `TransferCookieStorage` gives each hop's
/// Cookie header and takes each response head's Set-Cookie headers, redirects included, under
/// the configuration's accept policy. libcurl's cookie engine stays off. The session's own
/// layer (`own`, DECISIONS 109) holds its cookie files and everything set during the session:
/// the shared store never learns a `-b FILE`'s cookies, and `-c` writes the layer.
///
/// A `TransferURLSession` replaces both layers with its configuration's `HTTPCookieStorage`
/// (`external`): that storage is the source of truth, its accept policy decides what is kept
/// and a cookie deleted from it is no longer sent, even on the next hop of a running task.
///
/// Used on the transfer thread; both stores take their own locks.
struct CookieLayers: Sendable {
    /// The session's cookie store (thread-safe; shared with other default sessions).
    let shared: TransferCookieStorage
    /// This session's own cookies, in memory (DECISIONS 109): its `cookieFiles` (curl's `-b
    /// FILE`) and what servers set during the session; never written to the shared store.
    let own: TransferCookieStorage
    /// The configuration's `httpShouldSetCookies`.
    let enabled: Bool
    /// The configuration's `httpCookieAcceptPolicy`.
    let acceptPolicy: CookieAcceptPolicy
    /// The store that replaces both layers, when the session has one.
    let external: (any ExternalCookieStore)?

    init(shared: TransferCookieStorage, own: TransferCookieStorage, configuration: TransferConfiguration,
         external: (any ExternalCookieStore)? = nil) {
        self.shared = shared
        self.own = own
        self.external = external
        enabled = configuration.httpShouldSetCookies
        acceptPolicy = configuration.httpCookieAcceptPolicy
    }

    func applies(to request: TransferRequest) -> Bool {
        enabled && request.httpShouldHandleCookies
    }

    /// The Cookie header for this hop's request, or nil.
    func header(for request: TransferRequest) -> String? {
        guard applies(to: request) else { return nil }
        let url = request.url
        if let external { return external.cookieHeader(for: url) }
        let mine = own.cookies(for: url)
        if mine.isEmpty { return shared.cookieHeader(for: url) }
        // One header from both layers; the session's own cookie wins over its namesake in the
        // store (a `-b FILE` value, or the same value a server set during the session).
        var jar = CookieJar()
        let now = Date().timeIntervalSince1970
        for c in shared.cookies(for: url) { jar.set(c, now: now) }
        for c in mine { jar.set(c, now: now) }
        return jar.cookieHeader(for: url, now: now)
    }

    /// Keeps the Set-Cookie headers of a response head to `request` in both layers.
    func record(_ responseHeaders: [HTTPHeader], for request: TransferRequest) {
        guard applies(to: request), acceptPolicy != .never else { return }
        let values = responseHeaders.compactMap { h in
            h.name.utf8.count == 10 && h.name.lowercased() == "set-cookie" ? h.value : nil
        }
        guard !values.isEmpty else { return }
        if let external { return external.receive(values, from: request.url, mainDocumentURL: request.mainDocumentURL) }
        for store in [shared, own] {
            store.receive(values, from: request.url, mainDocumentURL: request.mainDocumentURL, policy: acceptPolicy)
        }
    }
}

/// A cookie store outside TransferKit that a session uses instead of its own: asked for each
/// hop's Cookie header and handed each response head's Set-Cookie values (its own accept
/// policy applies). Called on the transfer thread; implementations are thread-safe.
protocol ExternalCookieStore: Sendable {
    func cookieHeader(for url: URL) -> String?
    func receive(_ setCookieValues: [String], from url: URL, mainDocumentURL: URL?)
}
