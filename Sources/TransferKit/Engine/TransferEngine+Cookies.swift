import Foundation

/// Cookies per hop (DECISIONS 100): the session's `TransferCookieStorage` gives each hop's
/// Cookie header and takes each response head's Set-Cookie headers, redirects included, under
/// the configuration's accept policy. libcurl's cookie engine stays off.
extension TransferEngine {
    func usesCookies(_ t: Transfer) -> Bool {
        configuration.httpShouldSetCookies && t.request.httpShouldHandleCookies
    }

    func storedCookieHeader(_ t: Transfer) -> String? {
        guard usesCookies(t) else { return nil }
        return cookieStorage.cookieHeader(for: t.request.url)
    }

    func recordCookies(_ t: Transfer) {
        guard usesCookies(t), configuration.httpCookieAcceptPolicy != .never else { return }
        let values = t.responseHeaders.compactMap { h in
            h.name.utf8.count == 10 && h.name.lowercased() == "set-cookie" ? h.value : nil
        }
        guard !values.isEmpty else { return }
        cookieStorage.receive(values, from: t.request.url, mainDocumentURL: t.request.mainDocumentURL,
                              policy: configuration.httpCookieAcceptPolicy)
    }
}
