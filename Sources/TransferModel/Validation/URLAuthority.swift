/// A URL's scheme and authority read from its text, without Foundation (a URL that Foundation
/// would refuse still gives what can be read): the authority ends at the first `/`, `?` or `#`,
/// and the last `@` in it ends the user information. The run's per-host statistics and the
/// trace attributes read hosts this way. (`Redaction` reads user information on its own terms:
/// there an authority ends at `/` only, so that a doubt masks too much rather than too little.)
public struct URLAuthority {
    /// Before `://`, as written.
    public var scheme: Substring
    /// Before the last `@` of the authority; nil when there is none.
    public var userInfo: Substring?
    /// The rest of the authority: host, and `:port` when written. May be empty.
    public var hostAndPort: Substring

    /// Nil for text without `://`.
    public init?(_ url: String) {
        guard let separator = url.range(of: "://") else { return nil }
        scheme = url[..<separator.lowerBound]
        let rest = url[separator.upperBound...]
        let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            hostAndPort = authority[authority.index(after: at)...]
        } else {
            userInfo = nil
            hostAndPort = authority
        }
    }
}
