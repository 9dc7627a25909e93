import Foundation

/// HTTP Strict Transport Security (RFC 6797) as a value: which host names must be reached over
/// https, learnt from `Strict-Transport-Security` headers of https responses, kept in curl's
/// hsts.txt format (DECISIONS 67). Pure: the engine does the I/O.
public struct HSTSStore: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var includeSubdomains: Bool
        /// Seconds since 1970; `.infinity` for curl's "unlimited".
        public var expires: Double
    }

    /// By host name: lower case, without a trailing dot.
    public private(set) var entries: [String: Entry] = [:]
    /// curl keeps at most 1,000 (MAX_HSTS_ENTRIES): a hostile server cannot grow the file without
    /// bound either.
    public static let maximumEntries = 1000
    /// Hosts a server told to forget (max-age=0) since this store was made: a merge with an
    /// older file must not bring them back.
    public private(set) var forgotten: Set<String> = []

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }

    // MARK: learning

    /// Applies a `Strict-Transport-Security` header received from `host` over https. An invalid
    /// header (no max-age, a directive twice) changes nothing, as RFC 6797 6.1 says; max-age=0
    /// forgets the host. IP literals never get HSTS (RFC 6797 8.1.1). True when the store changed.
    @discardableResult
    public mutating func record(header: String, host: String, now: Double) -> Bool {
        guard let name = Self.normalized(host), !Self.isIPLiteral(name),
              let (maxAge, subdomains) = Self.parse(header)
        else { return false }
        if maxAge == 0 {
            // Changed also when only the file may hold it: the next write must drop it there.
            let newlyForgotten = forgotten.insert(name).inserted
            return entries.removeValue(forKey: name) != nil || newlyForgotten
        }
        forgotten.remove(name)
        let expires = maxAge >= Double(Int64.max) / 2 ? .infinity : now + maxAge
        let entry = Entry(includeSubdomains: subdomains, expires: expires)
        if entries[name] == entry { return false }
        if entries[name] == nil, entries.count >= Self.maximumEntries { evictSoonestExpiring() }
        entries[name] = entry
        return true
    }

    /// `(max-age, includeSubDomains)` of a header value, nil when invalid.
    static func parse(_ header: String) -> (Double, Bool)? {
        var maxAge: Double?
        var subdomains = false
        for raw in header.split(separator: ";", omittingEmptySubsequences: true) {
            let directive = raw.trimmingCharacters(in: .whitespaces)
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first?.lowercased(), !name.isEmpty else { continue }
            switch name {
            case "max-age":
                guard maxAge == nil, parts.count == 2 else { return nil }
                var value = Substring(parts[1])
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                // Digits beyond Int64 saturate (a year 10,000 expiry is "unlimited").
                maxAge = Double(value) ?? .infinity
            case "includesubdomains":
                guard !subdomains, parts.count == 1 else { return nil }
                subdomains = true
            default:
                continue  // unknown directives are ignored (RFC 6797 6.1)
            }
        }
        guard let maxAge else { return nil }
        return (maxAge, subdomains)
    }

    // MARK: using

    /// True when a plain-http request to `host` must go over https instead: an unexpired entry
    /// for the name itself, or for a parent domain with includeSubDomains.
    public func requiresHTTPS(host: String, now: Double) -> Bool {
        guard !entries.isEmpty, let name = Self.normalized(host), !Self.isIPLiteral(name) else { return false }
        if let e = entries[name], e.expires > now { return true }
        var rest = Substring(name)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if let e = entries[String(rest)], e.includeSubdomains, e.expires > now { return true }
        }
        return false
    }

    /// The https URL an http `url` becomes under HSTS, nil when it stays as it is. Port 80 (said
    /// or implied) becomes 443; any other explicit port is kept (RFC 6797 8.3).
    public func upgraded(_ url: URL, now: Double) -> URL? {
        guard url.scheme?.lowercased() == "http", let host = url.host, requiresHTTPS(host: host, now: now),
              var c = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return nil }
        c.scheme = "https"
        if c.port == 80 { c.port = nil }
        return c.url
    }

    // MARK: curl's file format

    /// Entries from curl's hsts.txt (`[.]host "YYYYMMDD HH:MM:SS"` or `"unlimited"`, a leading dot
    /// for includeSubDomains, `#` comments). Malformed and expired lines are skipped.
    public mutating func merge(fileText: String, now: Double) {
        for line in fileText.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#"),
                  let space = trimmed.firstIndex(of: " ") else { continue }
            var host = Substring(trimmed[..<space])
            let date = trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)
            guard date.count >= 2, date.first == "\"", date.last == "\"" else { continue }
            let subdomains = host.hasPrefix(".")
            if subdomains { host = host.dropFirst() }
            guard let name = Self.normalized(String(host)), !Self.isIPLiteral(name),
                  let expires = Self.parseExpiry(String(date.dropFirst().dropLast())), expires > now
            else { continue }
            // The same host twice (two processes' files merged): the later expiry, the stricter
            // subdomain rule, as curl does.
            if let old = entries[name] {
                entries[name] = Entry(includeSubdomains: old.includeSubdomains || subdomains, expires: max(old.expires, expires))
            } else if entries.count < Self.maximumEntries {
                entries[name] = Entry(includeSubdomains: subdomains, expires: expires)
            }
        }
    }

    /// Adds the hosts `other` knows and this store does not (another process's file, merged
    /// before writing it over): this store's own entries, and its forgetting, win.
    public mutating func adoptMissing(from other: HSTSStore) {
        for (host, entry) in other.entries where entries[host] == nil && !forgotten.contains(host)
            && entries.count < Self.maximumEntries {
            entries[host] = entry
        }
    }

    /// The unexpired entries in curl's format, sorted by host so the file is stable.
    public func fileText(now: Double) -> String {
        var out = "# Your HSTS cache. https://curl.se/docs/hsts.html\n# Written by TransferKit in libcurl's format.\n"
        for (host, e) in entries.sorted(by: { $0.key < $1.key }) where e.expires > now {
            out += "\(e.includeSubdomains ? "." : "")\(host) \"\(Self.formatExpiry(e.expires))\"\n"
        }
        return out
    }

    static func parseExpiry(_ s: String) -> Double? {
        if s == "unlimited" { return .infinity }
        let bytes = Array(s.utf8)
        // YYYYMMDD HH:MM:SS
        guard bytes.count == 17, bytes[8] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: ":"), bytes[14] == UInt8(ascii: ":")
        else { return nil }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for b in bytes[r] {
                guard b >= 48, b <= 57 else { return nil }
                v = v * 10 + Int(b - 48)
            }
            return v
        }
        guard let y = num(0..<4), let mo = num(4..<6), let d = num(6..<8),
              let h = num(9..<11), let mi = num(12..<14), let se = num(15..<17),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61
        else { return nil }
        var c = DateComponents()
        (c.year, c.month, c.day, c.hour, c.minute, c.second) = (y, mo, d, h, mi, se)
        return Self.utc.date(from: c)?.timeIntervalSince1970
    }

    static func formatExpiry(_ t: Double) -> String {
        guard t.isFinite, t < 253_402_300_800 else { return "unlimited" }  // past 9999-12-31
        let c = Self.utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: t))
        func pad(_ v: Int?, _ n: Int) -> String {
            let s = String(v ?? 0)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(c.year, 4))\(pad(c.month, 2))\(pad(c.day, 2)) \(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))"
    }

    private static let utc: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    // MARK: names

    static func normalized(_ host: String) -> String? {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        while h.hasSuffix(".") { h.removeLast() }
        guard !h.isEmpty, h.utf8.count <= 253,
              h.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0 != "\"" && $0 != "/" })
        else { return nil }
        return h
    }

    static func isIPLiteral(_ h: String) -> Bool {
        if h.contains(":") { return true }  // IPv6
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
    }

    private mutating func evictSoonestExpiring() {
        if let victim = entries.min(by: { $0.value.expires < $1.value.expires })?.key { entries.removeValue(forKey: victim) }
    }
}
