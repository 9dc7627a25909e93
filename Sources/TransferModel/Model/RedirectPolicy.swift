import Foundation

/// How a redirect rewrites a request: method and body rules for
/// 301/302/303/307/308 as browsers and URLSession apply them, and credentials dropped when
/// the redirect leaves the origin. Pure.
public enum RedirectPolicy {
    /// Foundation follows 305 and 306 as it follows 307: same method, same body.
    public static let redirectStatuses: Set<Int> = [301, 302, 303, 305, 306, 307, 308]
    /// URLSession's limit (swift-corelibs-foundation's and Apple's: 20); one more redirect
    /// fails with `.httpTooManyRedirects`.
    public static let maximumRedirects = 20

    public struct Request: Sendable, Equatable {
        public var method: String
        public var url: URL
        public var headers: [HTTPHeader]
        public var hasBody: Bool
        public init(method: String, url: URL, headers: [HTTPHeader], hasBody: Bool) {
            self.method = method
            self.url = url
            self.headers = headers
            self.hasBody = hasBody
        }
    }

    public enum Outcome: Sendable, Equatable {
        /// Not a redirect: the response is final.
        case final
        case follow(Request)
        /// A redirect status whose Location is unparsable or names no host.
        case invalid(String)
        /// A redirect to a scheme other than http and https (`file:`, `ftp:`, `data:`, …):
        /// refused, as curl's default redirect protocols refuse them, so a server cannot
        /// point a download at a local file or another protocol. The task fails naming it.
        case refusedScheme(String)
    }

    /// Why a task stopped at its redirect limit (`limit` redirects were followed).
    public static func tooMany(limit: Int) -> String {
        limit == 0 ? "the server redirected and no redirect may be followed (the limit is 0)"
            : "more than \(limit) redirects (a redirect loop?)"
    }

    /// Why a redirect to `scheme` was refused, as the failed task says it.
    public static func refusal(scheme: String) -> String {
        "the server redirected to a '\(scheme):' URL, which is refused (only http and https redirects are followed)"
    }

    /// `trustedCredentials`: credential headers may follow to another origin (never https → http).
    public static func evaluate(_ request: Request, status: Int, location: String?,
                                trustedCredentials: Bool = false) -> Outcome {
        guard redirectStatuses.contains(status) else { return .final }
        guard let location, !location.isEmpty else { return .final }  // no Location: not followable
        // Encoded once: a raw UTF-8 Location with `%XX` escapes must not have them escaped again.
        guard let target = URL(string: URLText.encodeOnce(location), relativeTo: request.url)?.absoluteURL,
              let scheme = target.scheme?.lowercased() else {
            return .invalid("redirect to an unparsable Location")
        }
        guard scheme == "http" || scheme == "https" else { return .refusedScheme(SafeQuote.quote(scheme, limit: 16)) }
        guard target.host != nil else { return .invalid("redirect to a Location without a host") }
        var next = request
        next.url = target
        if changesToGET(method: request.method, status: status) {
            next.method = "GET"
            next.hasBody = false
            next.headers.removeAll { ["content-type", "content-length", "content-encoding"].contains($0.name.lowercased()) }
        }
        next.headers = headers(next.headers, origin: request.url, hop: target, trusted: trustedCredentials)
        return .follow(next)
    }

    /// 303 turns everything but HEAD into GET; 301 and 302 turn POST into GET (what browsers
    /// and URLSession do, though RFC 9110 allows keeping it); 307 and 308 never change it.
    static func changesToGET(method: String, status: Int) -> Bool {
        let m = method.uppercased()
        switch status {
        case 303: return m != "HEAD" && m != "GET"
        case 301, 302: return m == "POST"
        default: return false
        }
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        // A task's first hop is its origin: equal text says so without parsing either URL's
        // scheme, host and port (asked for every request set up).
        if a.absoluteString == b.absoluteString { return true }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    /// The URL's port, or its scheme's default (443 for https, 80 otherwise).
    public static func effectivePort(_ u: URL) -> Int {
        u.port ?? (u.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
