import Foundation
import TransferModel

/// OpenTelemetry's HTTP semantic conventions for a request's method and URL
/// (https://opentelemetry.io/docs/specs/semconv/http/http-spans/).
extension TaskTrace {
    /// The methods the conventions know; any other is `_OTHER`, its text in
    /// `http.request.method_original`.
    static let knownMethods: Set<String> = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE"]

    /// A client span is named by its method (`GET`), or `HTTP` for a method the conventions do
    /// not know; we have no URL template, and the conventions keep the path out of the name.
    static func spanName(_ method: String) -> String {
        knownMethods.contains(method) ? method : "HTTP"
    }

    static func method(_ method: String) -> [String: SpanValue] {
        if knownMethods.contains(method) { return ["http.request.method": .string(method)] }
        return ["http.request.method": .string("_OTHER"), "http.request.method_original": .string(method)]
    }

    /// `url.full` (no user info; secret-looking query parameters redacted as in every export),
    /// `url.scheme`, `server.address` and `server.port` (the scheme's default when the URL
    /// names none).
    static func urlAttributes(_ url: String) -> [String: SpanValue] {
        var a: [String: SpanValue] = ["url.full": .string(fullURL(url))]
        guard let parts = URLParts(url) else { return a }
        a["url.scheme"] = .string(parts.scheme)
        if !parts.host.isEmpty { a["server.address"] = .string(parts.host) }
        if let port = parts.port ?? defaultPort(parts.scheme) { a["server.port"] = .int(Int64(port)) }
        return a
    }

    /// The URL without its user info (the conventions forbid credentials in `url.full`), then
    /// redacted as the CSV redacts it.
    public static func fullURL(_ url: String) -> String {
        Redaction.redactURL(withoutUserInfo(url))
    }

    static func withoutUserInfo(_ url: String) -> String {
        guard let parts = URLAuthority(url), parts.userInfo != nil else { return url }
        return parts.scheme + "://" + url[parts.hostAndPort.startIndex...]
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http": return 80
        case "https": return 443
        case "ftp": return 21
        case "ftps": return 990
        default: return nil
        }
    }

    /// libcurl's protocol name as the conventions' `network.protocol.version`.
    static func protocolVersion(_ name: String?) -> String? {
        switch name?.lowercased() {
        case "http/1.0": return "1.0"
        case "http/1.1": return "1.1"
        case "h2", "http/2", "http/2.0": return "2"
        case "h3", "http/3": return "3"
        default: return nil
        }
    }

    /// `TLSv1.3` → `1.3` (`tls.protocol.version`).
    static func tlsVersion(_ name: String) -> String {
        name.hasPrefix("TLSv") ? String(name.dropFirst(4)) : name
    }
}

/// Scheme, host and port of a URL, read from the raw text (a URL that Foundation would refuse
/// still gets what can be read). IPv6 hosts lose their brackets, as the conventions write them.
struct URLParts: Equatable {
    var scheme: String
    var host: String
    var port: Int?
}

extension URLParts {
    init?(_ url: String) {
        guard let parts = URLAuthority(url) else { return nil }
        scheme = parts.scheme.lowercased()
        let authority = parts.hostAndPort
        var hostPart = authority
        var portPart: Substring? = nil
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        host = hostPart.lowercased()
        port = portPart.flatMap { Int($0) }
    }
}
