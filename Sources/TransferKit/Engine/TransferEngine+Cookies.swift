import Foundation

/// Cookies per hop (DECISIONS 100): the session's `TransferCookieStorage` gives each hop's
/// Cookie header and takes each response head's Set-Cookie headers, redirects included, under
/// the configuration's accept policy. libcurl's cookie engine stays off. The session's own
/// layer (`sessionCookies`, DECISIONS 109) holds its cookie files and everything set during
/// the session: the shared store never learns a `-b FILE`'s cookies, and `-c` writes the layer.
extension TransferEngine {
    func usesCookies(_ t: Transfer) -> Bool {
        configuration.httpShouldSetCookies && t.request.httpShouldHandleCookies
    }

    func storedCookieHeader(_ t: Transfer) -> String? {
        guard usesCookies(t) else { return nil }
        let url = t.request.url
        let own = sessionCookies.cookies(for: url)
        if own.isEmpty { return cookieStorage.cookieHeader(for: url) }
        // One header from both layers; the session's own cookie wins over its namesake in the
        // store (a `-b FILE` value, or the same value a server set during the session).
        var jar = CookieJar()
        let now = Date().timeIntervalSince1970
        for c in cookieStorage.cookies(for: url) { jar.set(c, now: now) }
        for c in own { jar.set(c, now: now) }
        return jar.cookieHeader(for: url, now: now)
    }

    func recordCookies(_ t: Transfer) {
        guard usesCookies(t), configuration.httpCookieAcceptPolicy != .never else { return }
        let values = t.responseHeaders.compactMap { h in
            h.name.utf8.count == 10 && h.name.lowercased() == "set-cookie" ? h.value : nil
        }
        guard !values.isEmpty else { return }
        for store in [cookieStorage, sessionCookies] {
            store.receive(values, from: t.request.url, mainDocumentURL: t.request.mainDocumentURL,
                          policy: configuration.httpCookieAcceptPolicy)
        }
    }
}
