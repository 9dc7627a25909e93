import Foundation

/// URLRequest.CachePolicy's four cases that a cache honours.
public enum RequestCachePolicy: String, Sendable, Equatable, CaseIterable, Codable {
    case useProtocolCachePolicy, reloadIgnoringLocalCacheData, returnCacheDataElseLoad, returnCacheDataDontLoad
}

/// A Cache-Control header (RFC 9111 5.2), the directives a private cache uses.
public struct CacheControl: Sendable, Equatable {
    public var maxAge: Double?
    public var noCache = false
    public var noStore = false
    public var isPrivate = false
    public var isPublic = false
    public var mustRevalidate = false
    public var sMaxAge: Double?

    public init() {}

    /// Every Cache-Control value of a header list, joined; unknown directives are ignored, a
    /// malformed max-age is none (and a response without freshness is stale: RFC 9111 4.2.1).
    public init(headers: [HTTPHeader]) {
        self.init()
        for h in headers where h.name.caseInsensitiveCompare("Cache-Control") == .orderedSame {
            for raw in h.value.split(separator: ",") {
                let parts = raw.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard let name = parts.first?.lowercased(), !name.isEmpty else { continue }
                let arg = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
                switch name {
                case "max-age": maxAge = arg.flatMap(Self.seconds)
                case "s-maxage": sMaxAge = arg.flatMap(Self.seconds)
                case "no-cache": noCache = true
                case "no-store": noStore = true
                case "private": isPrivate = true
                case "public": isPublic = true
                case "must-revalidate", "proxy-revalidate": mustRevalidate = true
                default: continue
                }
            }
        }
        // `Pragma: no-cache` without Cache-Control (RFC 9111 5.4, HTTP/1.0).
        if !headers.contains(where: { $0.name.caseInsensitiveCompare("Cache-Control") == .orderedSame }),
           headers.contains(where: { $0.name.caseInsensitiveCompare("Pragma") == .orderedSame && $0.value.lowercased().contains("no-cache") }) {
            noCache = true
        }
    }

    static func seconds(_ s: String) -> Double? {
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Double(s.prefix(10))
    }
}

/// HTTP dates (RFC 9110 5.6.7: IMF-fixdate, and the obsolete forms) for Date, Expires and
/// Last-Modified: the lenient cookie-date reader accepts all three.
public enum HTTPDates {
    public static func parse(_ s: String?) -> Double? { s.flatMap { HTTPDate.parseCookieDate($0) } }

    /// IMF-fixdate, for If-Modified-Since when a response gave no Last-Modified text to echo.
    public static func format(_ seconds: Double) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f.string(from: Date(timeIntervalSince1970: seconds))
    }
}

/// A stored response's facts that freshness needs (RFC 9111 4.2), pure.
public struct CachedResponseFacts: Sendable, Equatable {
    public var statusCode: Int
    public var headers: [HTTPHeader]
    /// When the request was sent and the response received (seconds since 1970).
    public var requestTime: Double
    public var responseTime: Double

    public init(statusCode: Int, headers: [HTTPHeader], requestTime: Double, responseTime: Double) {
        self.statusCode = statusCode
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
    }

    func header(_ name: String) -> String? { headers.first(named: name) }

    /// RFC 9111 4.2.1, for a private cache (s-maxage is for shared caches): max-age, else
    /// Expires - Date, else 10% of Date - Last-Modified (a heuristic, 1 day at most), else 0.
    public var freshnessLifetime: Double {
        let cc = CacheControl(headers: headers)
        if let m = cc.maxAge { return m }
        let date = HTTPDates.parse(header("Date")) ?? responseTime
        if let expiresText = header("Expires") {
            // An invalid Expires (such as "0") means already expired.
            guard let expires = HTTPDates.parse(expiresText) else { return 0 }
            return max(0, expires - date)
        }
        if let lm = HTTPDates.parse(header("Last-Modified")), date > lm {
            return min(86400, (date - lm) / 10)
        }
        return 0
    }

    /// RFC 9111 4.2.3.
    public func currentAge(now: Double) -> Double {
        let date = HTTPDates.parse(header("Date")) ?? responseTime
        let ageValue = header("Age").flatMap { CacheControl.seconds($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let apparent = max(0, responseTime - date)
        let responseDelay = max(0, responseTime - requestTime)
        let correctedInitial = max(apparent, ageValue + responseDelay)
        return correctedInitial + max(0, now - responseTime)
    }

    public func isFresh(now: Double) -> Bool { freshnessLifetime > currentAge(now: now) }

    /// The validators sent back to revalidate; one that would break a header line is none.
    public var etag: String? { HeaderValidation.sendable(header("ETag")) }
    public var lastModified: String? { HeaderValidation.sendable(header("Last-Modified")) }
    public var hasValidator: Bool { etag != nil || lastModified != nil }

    /// The headers of a conditional request that revalidates this response (RFC 9111 4.3.1).
    public var conditionalHeaders: [HTTPHeader] {
        var out: [HTTPHeader] = []
        if let e = etag { out.append(HTTPHeader("If-None-Match", e)) }
        if let lm = lastModified { out.append(HTTPHeader("If-Modified-Since", lm)) }
        return out
    }

    /// The stored headers updated by a 304's (RFC 9111 4.3.4): each header the 304 carries
    /// replaces the stored ones of that name, except the framing ones.
    public func updated(with notModified: [HTTPHeader]) -> [HTTPHeader] {
        let keep: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]
        let incoming = notModified.filter { !keep.contains($0.name.lowercased()) }
        let names = Set(incoming.map { $0.name.lowercased() })
        return headers.filter { !names.contains($0.name.lowercased()) } + incoming
    }
}

/// Whether a cache may store a response, and which request headers its Vary names (RFC 9111
/// 3, 4.1), pure.
public enum CacheRules {
    /// Status codes stored (200 only here: the ones a downloader asks for; heuristic freshness
    /// would allow more, explicit freshness too, but a 404 in a cache surprises).
    public static let storableStatus: Set<Int> = [200]

    /// Hop-by-hop and per-response headers never stored (Set-Cookie belongs to the cookie
    /// store, never replayed from a cache).
    public static let unstoredHeaders: Set<String> = ["set-cookie", "set-cookie2", "connection", "keep-alive",
                                                      "proxy-authenticate", "transfer-encoding", "upgrade", "te", "trailer"]

    /// RFC 9111 3: a GET without Range, a storable status, no no-store in request or response,
    /// Vary not `*`, and a request with Authorization only when the response allows it
    /// explicitly (3.5: public, s-maxage or must-revalidate). `private` is storable here: this
    /// is a private cache (one user's).
    public static func isStorable(method: String, requestHeaders: [HTTPHeader], statusCode: Int,
                                  responseHeaders: [HTTPHeader]) -> Bool {
        guard method.uppercased() == "GET", storableStatus.contains(statusCode),
              requestHeaders.first(named: "Range") == nil else { return false }
        let request = CacheControl(headers: requestHeaders), response = CacheControl(headers: responseHeaders)
        if request.noStore || response.noStore { return false }
        if varyNames(responseHeaders) == nil { return false }
        if requestHeaders.first(named: "Authorization") != nil,
           !(response.isPublic || response.sMaxAge != nil || response.mustRevalidate) { return false }
        return true
    }

    /// The lower-case header names of Vary; nil for `Vary: *` (matches no later request).
    public static func varyNames(_ headers: [HTTPHeader]) -> [String]? {
        var names: [String] = []
        for h in headers where h.name.caseInsensitiveCompare("Vary") == .orderedSame {
            for n in h.value.split(separator: ",") {
                let name = n.trimmingCharacters(in: .whitespaces).lowercased()
                if name == "*" { return nil }
                if !name.isEmpty { names.append(name) }
            }
        }
        return names.sorted()
    }

    /// A request's values for the Vary names (all of each, joined), as stored with a response:
    /// as SHA-256 digests, so a `Vary: Authorization` or `Cookie` never puts a credential in
    /// the cache's files (equal values still match).
    public static func varyValues(_ names: [String], of requestHeaders: [HTTPHeader]) -> [String: String] {
        var out: [String: String] = [:]
        for n in names {
            let value = requestHeaders.filter { $0.name.lowercased() == n }.map { $0.value.trimmingCharacters(in: .whitespaces) }
                .joined(separator: ",")
            out[n] = "sha256:" + ModelSHA256.hex(Data(value.utf8))
        }
        return out
    }

    /// RFC 9111 4.1: a stored response is used for a request only when every header its Vary
    /// named has the same value (absent matches absent).
    public static func varyMatches(stored: [String: String], names: [String], request: [HTTPHeader]) -> Bool {
        varyValues(names, of: request) == stored.filter { names.contains($0.key) }
            && Set(stored.keys) == Set(names)
    }
}

/// What a cache does for a request (the engine carries it out).
public enum CacheDecision: Sendable, Equatable {
    /// Deliver the stored response; no request is sent.
    case useStored
    /// Send the request with these validators; a 304 delivers the stored body.
    case revalidate([HTTPHeader])
    /// Send the request; the stored response is not used.
    case network
    /// returnCacheDataDontLoad without a stored response: fail, send nothing.
    case fail
}

extension CacheRules {
    /// The decision for a request under `policy`, given the stored response that matches it
    /// (nil: none) and the request's own Cache-Control.
    public static func decide(policy: RequestCachePolicy, stored: CachedResponseFacts?, requestHeaders: [HTTPHeader],
                              now: Double) -> CacheDecision {
        switch policy {
        case .reloadIgnoringLocalCacheData: return .network
        case .returnCacheDataDontLoad: return stored == nil ? .fail : .useStored
        case .returnCacheDataElseLoad: return stored == nil ? .network : .useStored
        case .useProtocolCachePolicy:
            guard let stored else { return .network }
            let request = CacheControl(headers: requestHeaders), response = CacheControl(headers: stored.headers)
            let mustCheck = request.noCache || response.noCache || request.maxAge == 0
            if !mustCheck && stored.isFresh(now: now) { return .useStored }
            return stored.hasValidator ? .revalidate(stored.conditionalHeaders) : .network
        }
    }
}
