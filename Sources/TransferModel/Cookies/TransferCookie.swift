import Foundation

/// One HTTP cookie (RFC 6265), as Foundation's `HTTPCookie`: the value type a cookie store
/// keeps, lists, sets and deletes. Its identity is (name, domain, path), as a browser's.
public struct TransferCookie: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String
    /// Lower case, without a leading dot.
    public var domain: String
    public var path: String
    /// Sent only to `domain` itself (a Set-Cookie without a Domain attribute); false: also to
    /// its subdomains.
    public var isHostOnly: Bool
    public var isSecure: Bool
    public var isHTTPOnly: Bool
    /// Seconds since 1970; nil for a session cookie (kept in memory, never written to a
    /// persistent store).
    public var expires: Double?
    /// When it was first stored (seconds since 1970): orders cookies of equal path length.
    public var created: Double

    public init(name: String, value: String, domain: String, path: String = "/", isHostOnly: Bool = true,
                isSecure: Bool = false, isHTTPOnly: Bool = false, expires: Double? = nil, created: Double = 0) {
        self.name = name
        self.value = value
        self.domain = CookieRules.normalizedDomain(domain)
        self.path = path.hasPrefix("/") ? path : "/"
        self.isHostOnly = isHostOnly
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.expires = expires
        self.created = created
    }

    public var isSessionOnly: Bool { expires == nil }

    public struct Key: Hashable, Sendable {
        public var name: String, domain: String, path: String
    }

    public var key: Key { Key(name: name, domain: domain, path: path) }

    public func isExpired(now: Double) -> Bool { expires.map { $0 <= now } ?? false }

    /// Never the value: descriptions end up in logs.
    public var description: String { "\(name)=… (\(isHostOnly ? "" : ".")\(domain)\(path))" }

    /// Whether this cookie goes with a request to `url` (RFC 6265 5.4): domain, path and
    /// Secure. A host it does not belong to never gets it.
    public func matches(_ url: URL) -> Bool {
        guard let host = url.host.map(CookieRules.normalizedDomain), !host.isEmpty else { return false }
        if isSecure && url.scheme?.lowercased() != "https" { return false }
        if isHostOnly { if host != domain { return false } } else if !CookieRules.domainMatches(host: host, domain: domain) { return false }
        return CookieRules.pathMatches(requestPath: url.path.isEmpty ? "/" : url.path, cookiePath: path)
    }
}

/// `HTTPCookie.AcceptPolicy`'s three cases.
public enum CookieAcceptPolicy: String, Sendable, Equatable, CaseIterable {
    case always, never, onlyFromMainDocumentDomain
}

/// RFC 6265's matching rules and Set-Cookie parsing (section 5), pure.
public enum CookieRules {
    public static func normalizedDomain(_ d: String) -> String {
        var s = d.lowercased()
        while s.hasPrefix(".") { s.removeFirst() }
        while s.hasSuffix(".") { s.removeLast() }
        if s.hasPrefix("[") && s.hasSuffix("]") { s = String(s.dropFirst().dropLast()) }
        return s
    }

    public static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isASCIIDigit) }
    }

    /// RFC 6265 5.1.3: equal, or `host` ends with "." + `domain` and is not an IP address.
    public static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        return !isIPAddress(host) && host.hasSuffix("." + domain)
    }

    /// RFC 6265 5.1.4.
    public static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// RFC 6265 5.1.4's default path: the request path up to, not including, its last '/'.
    public static func defaultPath(_ url: URL) -> String {
        let p = url.path
        guard p.hasPrefix("/"), let last = p.lastIndex(of: "/"), last != p.startIndex else { return "/" }
        return String(p[..<last])
    }

    /// Longest: cookie names and values beyond this are refused (browsers keep 4 KiB a cookie).
    public static let maximumCookieBytes = 4096

    /// A Set-Cookie header value received from `url`, as a cookie, or nil when it must be
    /// ignored: no '=' or an empty name, control characters (a tab would break a cookies.txt
    /// line), a Domain the host does not belong to (or a bare top-level name), Secure from a
    /// plain http URL. An expiry in the past gives a cookie that deletes its namesake.
    /// `publicSuffixes`: a Domain that is a public suffix (`co.uk`) is refused unless it is the
    /// host itself (then the cookie is host-only); without a list, a Domain needs a dot.
    public static func parse(setCookie header: String, from url: URL, now: Double,
                             publicSuffixes: PublicSuffixList? = nil) -> TransferCookie? {
        guard let host = url.host.map(normalizedDomain), !host.isEmpty else { return nil }
        var pieces = header.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let pair = pieces.next(), let eq = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<eq].trimmingCharacters(in: .whitespaces)
        var value = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= maximumCookieBytes,
              !hasControl(name), !hasControl(value), !name.contains("=") else { return nil }
        var domainAttribute: String?
        var path: String?
        var secure = false, httpOnly = false
        var maxAge: Double?, expires: Double?
        while let raw = pieces.next() {
            let parts = raw.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let attr = parts.first?.lowercased(), !attr.isEmpty else { continue }
            let v = parts.count > 1 ? parts[1] : ""
            switch attr {
            case "domain": if !v.isEmpty { domainAttribute = normalizedDomain(v) }
            case "path": path = v.hasPrefix("/") ? v : nil
            case "secure": secure = true
            case "httponly": httpOnly = true
            case "max-age":
                let digits = v.hasPrefix("-") ? v.dropFirst() : Substring(v)
                guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { continue }
                let n = Double(digits.prefix(12)) ?? 0
                maxAge = v.hasPrefix("-") ? -n : n
            case "expires": if let d = HTTPDate.parseCookieDate(v) { expires = d }
            default: continue
            }
        }
        if hasControl(path ?? "") { return nil }
        let isHTTPS = url.scheme?.lowercased() == "https"
        if secure && !isHTTPS { return nil }
        var cookie = TransferCookie(name: name, value: value, domain: host, path: path ?? defaultPath(url),
                                    isHostOnly: true, isSecure: secure, isHTTPOnly: httpOnly, created: now)
        if let d = domainAttribute, d != host {
            // A parent domain: the host must be within it, and it must not be a registry such
            // as "com" or "co.uk" (the public suffix list; without one, a bare name), nor the
            // parent of an IP address.
            guard domainMatches(host: host, domain: d), d.contains("."), !isIPAddress(host),
                  !(publicSuffixes?.isPublicSuffix(d) ?? false) else { return nil }
            cookie.domain = d
            cookie.isHostOnly = false
        } else if domainAttribute != nil, !isIPAddress(host), !(publicSuffixes?.isPublicSuffix(host) ?? false) {
            cookie.isHostOnly = false
        }
        if let maxAge { cookie.expires = maxAge <= 0 ? -.infinity : now + maxAge } else if let expires { cookie.expires = expires }
        return cookie
    }

    static func hasControl(_ s: some StringProtocol) -> Bool {
        s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

/// Dates in cookies (RFC 6265 5.1.1's lenient algorithm: any order of tokens); the cache reads
/// Expires and Last-Modified with it too. Formatting is in Model/HTTPDate.swift.
extension HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since 1970, or nil when the text is not a date.
    public static func parseCookieDate(_ text: String) -> Double? {
        var time: (Int, Int, Int)?, day: Int?, month: Int?, year: Int?
        let isDelimiter: (Character) -> Bool = { c in
            guard let a = c.asciiValue else { return false }
            return a == 0x09 || (0x20...0x2f).contains(a) || (0x3b...0x40).contains(a) || (0x5b...0x60).contains(a) || (0x7b...0x7e).contains(a)
        }
        for token in text.split(whereSeparator: isDelimiter) {
            let t = String(token)
            if time == nil {
                let hms = t.split(separator: ":", omittingEmptySubsequences: false)
                if hms.count == 3, hms.allSatisfy({ (1...2).contains($0.prefix(while: \.isASCIIDigit).count) }) {
                    let n = hms.map { Int($0.prefix(while: \.isASCIIDigit))! }
                    time = (n[0], n[1], n[2]); continue
                }
            }
            let digits = t.prefix(while: \.isASCIIDigit)
            if day == nil, (1...2).contains(digits.count) { day = Int(digits); continue }
            if month == nil, let m = months.firstIndex(of: String(t.prefix(3)).lowercased()) { month = m + 1; continue }
            if year == nil, (2...4).contains(digits.count) { year = Int(digits); continue }
        }
        guard let (h, mi, s) = time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, h <= 23, mi <= 59, s <= 59 else { return nil }
        return Double(daysFromCivil(year, month, day)) * 86400 + Double(h * 3600 + mi * 60 + s)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
