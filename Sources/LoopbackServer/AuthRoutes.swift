import Digest
import Foundation
import NIOHTTP1
import TransferModel

/// `/auth/basic/USER/PASS` and `/auth/digest/USER/PASS`: 200 for the right
/// credentials, else 401 with a challenge, as an RFC 7617 / RFC 7616 server (realm
/// "loopback"; Digest with MD5 and qop=auth, the variant curl and browsers answer).
/// `/auth/basic` and `/auth/digest` are the same for ``user`` and ``password``, so a test can
/// look for the password everywhere without finding it in a URL.
/// A request in absolute form (`GET http://host/path`: the server used as a plain HTTP proxy)
/// needs `Proxy-Authorization: Basic` for ``proxyUser``/``proxyPassword`` (else 407, realm
/// "proxy"), then is served as `/path`.
public enum AuthRoutes {
    public static let realm = "loopback"
    public static let user = "alice"
    public static let password = "wonderland-5f2c9a"
    public static let proxyRealm = "proxy"
    public static let proxyUser = "proxyuser"
    public static let proxyPassword = "proxypass-81d3"
    static let nonce = "dGVzdC1ub25jZS1mb3ItdHJhbnNmZXJ0b3A"

    static func route(_ scheme: String, user: String, password: String, head: HTTPRequestHead) -> ResponsePlan? {
        let authorization = head.headers.first(name: "Authorization") ?? ""
        switch scheme {
        case "basic":
            let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            if authorization == expected { return .text(.ok, "authenticated as \(user)\n") }
            return challenge("Basic realm=\"\(realm)\"")
        case "digest":
            if digestMatches(authorization, user: user, password: password, method: head.method.rawValue) {
                return .text(.ok, "authenticated as \(user)\n")
            }
            return challenge("Digest realm=\"\(realm)\", qop=\"auth\", algorithm=MD5, nonce=\"\(nonce)\"")
        default:
            return nil
        }
    }

    /// nil: not a proxy request. Otherwise the 407 to send (nil when authorised) and the
    /// origin-form target to serve.
    static func proxyRequest(_ head: HTTPRequestHead) -> (refusal: ResponsePlan?, target: String)? {
        guard head.uri.lowercased().hasPrefix("http://"), let url = URL(string: head.uri) else { return nil }
        var target = url.path.isEmpty ? "/" : url.path
        if let q = url.query { target += "?" + q }
        let expected = "Basic " + Data("\(proxyUser):\(proxyPassword)".utf8).base64EncodedString()
        if head.headers.first(name: "Proxy-Authorization") == expected { return (nil, target) }
        var plan = ResponsePlan.text(HTTPResponseStatus(statusCode: 407), "proxy authentication required\n")
        plan.headers.add(name: "Proxy-Authenticate", value: "Basic realm=\"\(proxyRealm)\"")
        return (plan, target)
    }

    static func challenge(_ value: String) -> ResponsePlan {
        var plan = ResponsePlan.text(.unauthorized, "authentication required\n")
        plan.headers.add(name: "WWW-Authenticate", value: value)
        return plan
    }

    /// RFC 7616 3.4.1 with qop=auth: MD5(MD5(user:realm:pass):nonce:nc:cnonce:auth:MD5(method:uri)).
    static func digestMatches(_ header: String, user: String, password: String, method: String) -> Bool {
        guard header.hasPrefix("Digest ") else { return false }
        let fields = parameters(String(header.dropFirst(7)))
        guard fields["username"] == user, fields["realm"] == realm, fields["nonce"] == nonce, fields["qop"] == "auth",
              let uri = fields["uri"], let nc = fields["nc"], let cnonce = fields["cnonce"], let response = fields["response"]
        else { return false }
        let ha1 = MD5.hex("\(user):\(realm):\(password)")
        let ha2 = MD5.hex("\(method):\(uri)")
        return response == MD5.hex("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
    }

    /// `a="x", b=y` → [a: x, b: y] (quoted values may hold commas).
    static func parameters(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let eq = rest.firstIndex(of: "=") else { break }
            let key = rest[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: eq)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                let end = rest.firstIndex(of: "\"") ?? rest.endIndex
                value = String(rest[..<end])
                rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            out[key] = value
        }
        return out
    }
}
