import Foundation

/// The Public Suffix List (publicsuffix.org) as rules: which names are registries under which
/// anyone may register (`com`, `co.uk`, `*.ck` but not `www.ck`). A cookie for such a name would
/// go to every site under it, so a Set-Cookie naming one as its Domain is refused (RFC 6265
/// 5.3 step 5), as browsers and libcurl (with libpsl) do. Pure: the text is read elsewhere.
public struct PublicSuffixList: Sendable {
    var rules: Set<String> = []
    var wildcards: Set<String> = []
    var exceptions: Set<String> = []

    /// The list's text format: one rule a line, `//` comments, `*.` wildcards, `!` exceptions.
    public init(text: String) {
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            if line.isEmpty || line.hasPrefix("//") { continue }
            let rule = line.lowercased()
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
    }

    public var isEmpty: Bool { rules.isEmpty && wildcards.isEmpty }

    /// Whether `domain` (lower case, no leading dot) is a public suffix. A single label always
    /// is (the list's implicit `*` rule). Internationalised names are compared as given (the
    /// list's Unicode form against a URL's punycode never matches: such a name is then judged
    /// by the single-label rule only).
    public func isPublicSuffix(_ domain: String) -> Bool {
        let d = CookieRules.normalizedDomain(domain)
        if exceptions.contains(d) { return false }
        if rules.contains(d) { return true }
        guard let dot = d.firstIndex(of: ".") else { return true }
        return wildcards.contains(String(d[d.index(after: dot)...]))
    }
}
