import Foundation
import NIOHTTP1
import TransferModel

/// Protected routes for authentication tests (SPEC S12):
/// - `/basic/USER/PASS`: HTTP Basic, realm "loopback" (`/basic`: for `user`/`password`, so a
///   test can look for the password everywhere without finding it in the URL);
/// - `/digest/USER/PASS`: HTTP Digest (RFC 7616, SHA-256, qop=auth), realm "loopback";
/// - an absolute-form request (`GET http://host/path`, a plain HTTP proxy without CONNECT)
///   needs `Proxy-Authorization: Basic` for `proxyUser`/`proxyPassword`, then is served as
///   `/path`.
/// Success answers 200 with the request's headers as JSON (so a test sees what was sent).
public enum AuthRoutes {
    public static let realm = "loopback"
    public static let user = "alice"
    public static let password = "wonderland-5f2c9a"
    public static let proxyUser = "proxyuser"
    public static let proxyPassword = "proxypass"
    static let nonce = "dcd98b7102dd2f0e8b11d0f600bfb0c093"

    static func protected(head: HTTPRequestHead, scheme: String, user: String, password: String) -> ResponsePlan {
        let authorization = head.headers["Authorization"].first ?? ""
        let ok = scheme == "basic"
            ? authorization == "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            : digestMatches(authorization, method: head.method.rawValue, user: user, password: password)
        if ok { return .text(.ok, "{\"headers\":\(Router.jsonHeaders(head.headers))}", type: "application/json") }
        var plan = ResponsePlan.text(.unauthorized, "unauthorized\n")
        plan.headers.add(name: "WWW-Authenticate", value: scheme == "basic"
            ? "Basic realm=\"\(realm)\""
            : "Digest realm=\"\(realm)\", qop=\"auth\", algorithm=SHA-256, nonce=\"\(nonce)\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"")
        return plan
    }

    /// nil: not a proxy request. Otherwise the 407 to send (nil when authorised) and the
    /// origin-form target to serve.
    static func proxyRequest(_ head: HTTPRequestHead) -> (ResponsePlan?, String)? {
        guard head.uri.lowercased().hasPrefix("http://"), let url = URL(string: head.uri) else { return nil }
        var target = url.path.isEmpty ? "/" : url.path
        if let q = url.query { target += "?" + q }
        let expected = "Basic " + Data("\(proxyUser):\(proxyPassword)".utf8).base64EncodedString()
        if head.headers["Proxy-Authorization"].first == expected { return (nil, target) }
        var plan = ResponsePlan.text(HTTPResponseStatus(statusCode: 407), "proxy authentication required\n")
        plan.headers.add(name: "Proxy-Authenticate", value: "Basic realm=\"proxy\"")
        return (plan, target)
    }

    static func digestMatches(_ header: String, method: String, user: String, password: String) -> Bool {
        guard header.hasPrefix("Digest ") else { return false }
        let p = parameters(String(header.dropFirst(7)))
        guard p["username"] == user, p["realm"] == realm, p["nonce"] == nonce, let uri = p["uri"],
              let response = p["response"], let nc = p["nc"], let cnonce = p["cnonce"], p["qop"] == "auth" else { return false }
        func h(_ s: String) -> String { SHA256.hex(Data(s.utf8)) }
        let ha1 = h("\(user):\(realm):\(password)"), ha2 = h("\(method):\(uri)")
        return response == h("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
    }

    /// `a="x", b=y` → ["a": "x", "b": "y"].
    static func parameters(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            let name = rest.prefix { $0 != "=" }
            rest = rest.dropFirst(name.count + 1)
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                value = String(rest.prefix { $0 != "\"" })
                rest = rest.dropFirst(value.count + 1)
            } else {
                value = String(rest.prefix { $0 != "," })
                rest = rest.dropFirst(value.count)
            }
            if !name.isEmpty { out[name.trimmingCharacters(in: .whitespaces).lowercased()] = value.trimmingCharacters(in: .whitespaces) }
        }
        return out
    }
}
