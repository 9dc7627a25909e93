import Foundation

/// A set of cookies as a value: stored, replaced and deleted by (name, domain, path), matched to
/// request URLs, and read and written in the Netscape cookies.txt format that curl and wget
/// read. Pure: the store in TransferKit does the locking and the file I/O.
public struct CookieJar: Sendable, Equatable {
    public private(set) var cookies: [TransferCookie.Key: TransferCookie] = [:]
    /// Cookies deleted (or expired by a server) since this jar was made: a merge with an older
    /// file must not bring them back.
    public private(set) var deleted: Set<TransferCookie.Key> = []
    /// How many of `cookies` each domain has: the per-domain cap is checked without a pass
    /// over the jar (loading a store of thousands was a pass per cookie).
    private var perDomain: [String: Int] = [:]
    /// At most this many (a hostile server cannot grow the file without bound); the oldest go.
    public static let maximumCookies = 3000
    /// At most this many per domain, the oldest of the domain going first (Chromium's figure;
    /// RFC 6265 6.1 asks for at least 50): one server cannot fill the jar and push out every
    /// other site's cookies.
    public static let maximumCookiesPerDomain = 180
    /// A request's `Cookie` header carries at most this many cookies and bytes (curl's
    /// MAX_COOKIE_SEND_AMOUNT and MAX_COOKIE_HEADER_LEN): past them servers answer 431 or
    /// close the connection. The cookies left out are the last in RFC 6265's order (shorter
    /// paths, then newer).
    public static let maximumCookiesSent = 150
    public static let maximumCookieHeaderBytes = 8190

    public init() {}

    public var isEmpty: Bool { cookies.isEmpty }

    /// Every cookie, in a stable order (domain, path, name).
    public var all: [TransferCookie] {
        cookies.values.sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
    }

    /// Stores `cookie`, replacing its namesake (keeping the first creation time); an expired
    /// one deletes its namesake instead. True when the jar changed.
    @discardableResult
    public mutating func set(_ cookie: TransferCookie, now: Double) -> Bool {
        let key = cookie.key
        if cookie.isExpired(now: now) { return delete(key) }
        var c = cookie
        deleted.remove(key)
        if let old = cookies[key] {
            c.created = old.created
            if old == c { return false }
            cookies[key] = c  // the same key: the same domain, counted already
        } else {
            insert(c)
        }
        return true
    }

    /// Adds a cookie under a key the jar does not hold, first making room: the domain's oldest
    /// goes when the domain is full, else the jar's oldest when the jar is.
    private mutating func insert(_ c: TransferCookie) {
        if perDomain[c.domain, default: 0] >= Self.maximumCookiesPerDomain,
           let oldest = cookies.values.filter({ $0.domain == c.domain }).min(by: Self.olderFirst) {
            remove(oldest.key)
        } else if cookies.count >= Self.maximumCookies, let oldest = cookies.values.min(by: Self.olderFirst) {
            remove(oldest.key)
        }
        cookies[c.key] = c
        perDomain[c.domain, default: 0] += 1
    }

    @discardableResult
    private mutating func remove(_ key: TransferCookie.Key) -> Bool {
        guard let old = cookies.removeValue(forKey: key) else { return false }
        let left = perDomain[old.domain, default: 1] - 1
        perDomain[old.domain] = left > 0 ? left : nil
        return true
    }

    /// Creation time, then name and path: which of two cookies is evicted first, the same
    /// every run even for cookies made in one instant.
    private static func olderFirst(_ a: TransferCookie, _ b: TransferCookie) -> Bool {
        (a.created, a.name, a.path) < (b.created, b.name, b.path)
    }

    @discardableResult
    public mutating func delete(_ key: TransferCookie.Key) -> Bool {
        deleted.insert(key)
        return remove(key)
    }

    /// Drops expired cookies; true when any went.
    @discardableResult
    public mutating func removeExpired(now: Double) -> Bool {
        let gone = cookies.values.filter { $0.isExpired(now: now) }.map(\.key)
        for k in gone { remove(k) }
        return !gone.isEmpty
    }

    /// Drops the cookies that live only as long as the process (for a fresh process's view).
    public mutating func removeSessionCookies() {
        for k in cookies.values.filter(\.isSessionOnly).map(\.key) { remove(k) }
    }

    /// The cookies for a request to `url` (RFC 6265 5.4): longer paths first, then older.
    public func cookies(for url: URL, now: Double) -> [TransferCookie] {
        cookies.values.filter { !$0.isExpired(now: now) && $0.matches(url) }
            .sorted { ($1.path.count, $0.created, $0.name) < ($0.path.count, $1.created, $1.name) }
    }

    /// The `Cookie` header value for `url`, nil when no cookie goes there; within
    /// `maximumCookiesSent` cookies and `maximumCookieHeaderBytes` bytes (a cookie that does
    /// not fit is left out, a later smaller one may still go).
    public func cookieHeader(for url: URL, now: Double) -> String? {
        var header = "", sent = 0
        for c in cookies(for: url, now: now) where sent < Self.maximumCookiesSent {
            let pair = "\(c.name)=\(c.value)"
            let length = header.utf8.count + (sent == 0 ? 0 : 2) + pair.utf8.count
            guard length <= Self.maximumCookieHeaderBytes else { continue }
            header += (sent == 0 ? "" : "; ") + pair
            sent += 1
        }
        return sent == 0 ? nil : header
    }

    /// Adds the cookies of another jar that this one neither has nor deleted (another process's
    /// writes, merged before this one writes the file), within the same caps, oldest first.
    public mutating func adoptMissing(from other: CookieJar) {
        let missing = other.cookies.values.filter { cookies[$0.key] == nil && !deleted.contains($0.key) }
        for c in missing.sorted(by: Self.olderFirst) { insert(c) }
    }

    // MARK: the Netscape format

    public static let netscapeHeader = "# Netscape HTTP Cookie File\n# Written by transfertop. Do not edit while it runs.\n\n"

    /// The file's text: `domain TAB subdomains TAB path TAB secure TAB expires TAB name TAB
    /// value`, `#HttpOnly_` before an HttpOnly cookie's domain, as curl writes it. Session
    /// cookies have expiry 0 (curl reads 0 as a session cookie); `includeSession: false`
    /// leaves them out (a persistent store keeps them in memory only).
    public func netscapeText(now: Double, includeSession: Bool) -> String {
        var out = Self.netscapeHeader
        for c in all where !c.isExpired(now: now) && (includeSession || !c.isSessionOnly) {
            let domain = (c.isHTTPOnly ? "#HttpOnly_" : "") + (c.isHostOnly ? c.domain : "." + c.domain)
            let expires = c.expires.map { String(Int64(min($0, 253_402_300_799))) } ?? "0"
            out += [domain, c.isHostOnly ? "FALSE" : "TRUE", c.path, c.isSecure ? "TRUE" : "FALSE", expires, c.name, c.value]
                .joined(separator: "\t") + "\n"
        }
        return out
    }

    /// Reads a cookies.txt file's text, or a file of `Set-Cookie:` header lines (as libcurl's
    /// `-b FILE` does, with `origin` standing for the URL they came from). Returns how many
    /// lines were not understood (skipped, never fatal); expired cookies are dropped.
    @discardableResult
    public mutating func merge(fileText: String, now: Double, origin: URL? = nil) -> Int {
        var skipped = 0
        for raw in fileText.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if !merge(line: Substring(raw), now: now, origin: origin) { skipped += 1 }
        }
        return skipped
    }

    /// The same for a file's bytes, line by line: a line that is not UTF-8 is skipped like any
    /// line not understood, and the others are kept. Returns the 1-based numbers of the
    /// skipped lines (for a warning that names them).
    public mutating func merge(fileData: some Collection<UInt8>, now: Double, origin: URL? = nil) -> [Int] {
        var skipped: [Int] = []
        for (i, bytes) in fileData.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else { skipped.append(i + 1); continue }
            var line = Substring(text)
            if line.last == "\r" { line = line.dropLast() }
            if line.isEmpty { continue }
            if !merge(line: line, now: now, origin: origin) { skipped.append(i + 1) }
        }
        return skipped
    }

    /// One line of a cookie file; false when it was not understood.
    mutating func merge(line given: Substring, now: Double, origin: URL?) -> Bool {
        var line = given
        if line.lowercased().hasPrefix("set-cookie:") {
            let value = String(line.dropFirst(11))
            // Without the URL it came from, its own Domain attribute stands for it (as libcurl
            // reads such files): no Domain, no cookie.
            let from = origin ?? Self.domainAttribute(value).flatMap { URL(string: "https://\($0)/") }
            guard let from, let c = CookieRules.parse(setCookie: value, from: from, now: now) else { return false }
            set(c, now: now)
            return true
        }
        var httpOnly = false
        if line.hasPrefix("#HttpOnly_") { httpOnly = true; line = line.dropFirst(10) } else if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) { return true }
        guard let c = Self.parseNetscapeLine(line, httpOnly: httpOnly, now: now) else { return false }
        if !c.isExpired(now: now) { set(c, now: now) }
        return true
    }

    static func domainAttribute(_ setCookie: String) -> String? {
        for piece in setCookie.split(separator: ";").dropFirst() {
            let kv = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2, kv[0].lowercased() == "domain" {
                let d = CookieRules.normalizedDomain(kv[1])
                return d.isEmpty || d.contains(where: { $0 == "/" || $0 == "@" || $0 == ":" || $0 == " " }) ? nil : d
            }
        }
        return nil
    }

    static func parseNetscapeLine(_ line: Substring, httpOnly: Bool, now: Double) -> TransferCookie? {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        // curl writes 7 fields; a cookie with an empty value may have lost its last tab.
        guard f.count == 7 || f.count == 6 else { return nil }
        let rawDomain = f[0], sub = f[1].uppercased(), path = f[2], secure = f[3].uppercased()
        guard !rawDomain.isEmpty, sub == "TRUE" || sub == "FALSE", path.hasPrefix("/"),
              secure == "TRUE" || secure == "FALSE", let expiry = Int64(f[4]), !f[5].isEmpty,
              !CookieRules.hasControl(f[5]), !CookieRules.hasControl(f.count == 7 ? f[6] : "")
        else { return nil }
        let domain = CookieRules.normalizedDomain(rawDomain)
        guard !domain.isEmpty, !domain.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        return TransferCookie(name: f[5], value: f.count == 7 ? f[6] : "", domain: domain, path: path,
                              isHostOnly: sub == "FALSE" && !rawDomain.hasPrefix("."), isSecure: secure == "TRUE",
                              isHTTPOnly: httpOnly, expires: expiry == 0 ? nil : Double(expiry), created: now)
    }
}
