/// Removes secrets from URLs, header values and free text before anything is exported or logged
/// (Security bar).
///
/// Everything here works on the raw string, never through `URL`/`URLComponents`: a malformed URL
/// must be redacted too (a parser that gives up would leak it), and nothing here may crash.
/// Over-redaction is acceptable; a leak is not.
public enum Redaction {
    /// What replaces a secret value.
    public static let placeholder = "REDACTED"
    /// What replaces URL credentials: `https://***:***@host/` (or `***@` without a password).
    public static let credentialPlaceholder = "***"

    /// `url` with credentials masked and secret-looking query or fragment parameters replaced.
    public static func redactURL(_ url: String) -> String {
        // No `@`, `?` or `#`: nothing to redact (the common case, once per event).
        if !url.utf8Contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            return url
        }
        // Credentials first, on the whole string: a `#` or `?` inside a (malformed) password
        // must not hide the `@` from us.
        var (head, fragment) = split(redactUserInfo(url), at: "#")
        var query: Substring?
        (head, query) = split(head, at: "?")
        var result = String(head)
        if let query { result += "?" + redactParameters(query) }
        if let fragment { result += "#" + redactParameters(fragment) }
        return result
    }

    /// The header as it may be exported: secret values masked, URL-valued headers redacted.
    public static func redactHeader(_ header: HTTPHeader) -> HTTPHeader {
        HTTPHeader(header.name, redactHeaderValue(name: header.name, value: header.value))
    }

    public static func redactHeaders(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        headers.map(redactHeader)
    }

    /// The value of header `name` as it may be exported.
    ///
    /// `Authorization` keeps its scheme (`Bearer REDACTED`) because "which scheme was used" is
    /// useful when debugging and is not a secret.
    public static func redactHeaderValue(name: String, value: String) -> String {
        let lower = name.lowercased()
        if lower == "authorization" || lower == "proxy-authorization" {
            return authorizationScheme(value).map { "\($0) \(placeholder)" } ?? placeholder
        }
        if SecretNames.isSecretHeader(name) { return placeholder }
        if urlValuedHeaders.contains(lower) { return redactURL(value) }
        return value
    }

    /// Free text (an error message, a log line) with every embedded URL redacted.
    public static func redactText(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let range = rest.range(of: "://") {
            let schemeStart = rest[..<range.lowerBound].lastIndex { !isSchemeCharacter($0) }
                .map { rest.index(after: $0) } ?? rest.startIndex
            var urlEnd = rest[range.upperBound...].firstIndex { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "<" || $0 == ">" } ?? rest.endIndex
            // Sentence punctuation after a URL (`…/x?token=abc: refused`, `(see http://h/)`)
            // belongs to the text.
            while urlEnd > range.upperBound, ".,;:)]}!".contains(rest[rest.index(before: urlEnd)]) {
                urlEnd = rest.index(before: urlEnd)
            }
            out += rest[..<schemeStart]
            out += redactURL(String(rest[schemeStart..<urlEnd]))
            rest = rest[urlEnd...]
        }
        return out + rest
    }

    static let urlValuedHeaders: Set<String> = ["location", "content-location", "referer", "origin", "link"]

    private static func isSchemeCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "+" || c == "-" || c == ".")
    }

    private static func split(_ s: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let i = s.firstIndex(of: separator) else { return (s, nil) }
        return (s[..<i], s[s.index(after: i)...])
    }

    private static func split(_ s: String, at separator: Character) -> (Substring, Substring?) {
        split(Substring(s), at: separator)
    }

    /// Masks `user:pass@` in the authority. Without `://` the part before the first `/` is
    /// treated as a possible authority too, so `user:pass@host/x` is caught. The authority ends
    /// at the first `/` only (not `?` or `#`), and the *last* `@` in it ends the user info: on
    /// doubt we mask too much rather than leak.
    private static func redactUserInfo(_ s: String) -> String {
        let authorityStart = s.range(of: "://")?.upperBound ?? s.startIndex
        let authorityEnd = s[authorityStart...].firstIndex(of: "/") ?? s.endIndex
        let authority = s[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return s }
        let userInfo = authority[..<at]
        let masked = userInfo.contains(":")
            ? "\(credentialPlaceholder):\(credentialPlaceholder)" : credentialPlaceholder
        return String(s[..<authorityStart]) + masked + String(s[at...])
    }

    /// `a=1&token=x` → `a=1&token=REDACTED`; also `;`-separated pairs. A bare value without `=`
    /// is kept (it has no name to judge it by) unless it looks like a secret name itself.
    private static func redactParameters(_ s: Substring) -> String {
        s.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<eq]
            return SecretNames.isSecretParameter(String(name)) ? "\(name)=\(placeholder)" : String(pair)
        }.joined(separator: "&")
    }

    private static func authorizationScheme(_ value: String) -> String? {
        let trimmed = value.drop { $0 == " " }
        guard let space = trimmed.firstIndex(of: " ") else { return nil }
        let scheme = trimmed[..<space]
        guard (1...20).contains(scheme.count), scheme.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return nil
        }
        return String(scheme)
    }
}
