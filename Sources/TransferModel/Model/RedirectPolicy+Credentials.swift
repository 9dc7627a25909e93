import Foundation

/// Which hops of a redirect chain may carry credentials (curl's rule). Credential
/// headers go only to the origin (scheme, host, port) the task was made for; `trusted`
/// (curl's `--location-trusted`) lets them follow to other hosts, but never from https to
/// http, where anyone on the path could read them. A delegate that wants them elsewhere puts
/// them back in the request it returns from *willPerformHTTPRedirection*.
extension RedirectPolicy {
    public static let credentialHeaderNames: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    public static func isCredentialHeader(_ name: String) -> Bool {
        credentialHeaderNames.contains(name.lowercased())
    }

    /// May a hop to `hop` carry the credentials given for `origin`?
    public static func credentialsAllowed(origin: URL, hop: URL, trusted: Bool) -> Bool {
        if sameOrigin(origin, hop) { return true }
        if isDowngrade(from: origin, to: hop) { return false }
        return trusted
    }

    /// https (the origin) → plain http (a hop): cleartext after a secure start.
    static func isDowngrade(from a: URL, to b: URL) -> Bool {
        a.scheme?.lowercased() == "https" && b.scheme?.lowercased() == "http"
    }

    /// `headers` without credential headers when the hop may not carry them.
    public static func headers(_ headers: [HTTPHeader], origin: URL, hop: URL, trusted: Bool) -> [HTTPHeader] {
        // Nothing to strip (a session's User-Agent): no origin check, which parses both URLs'
        // scheme, host and port for every request of a long list.
        if !headers.contains(where: { isCredentialHeader($0.name) }) { return headers }
        if credentialsAllowed(origin: origin, hop: hop, trusted: trusted) { return headers }
        return headers.filter { !isCredentialHeader($0.name) }
    }
}
