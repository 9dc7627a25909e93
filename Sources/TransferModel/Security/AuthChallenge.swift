import Foundation

/// One challenge of a `WWW-Authenticate` / `Proxy-Authenticate` header (RFC 9110 §11.6.1):
/// its scheme and realm, which is all a protection space needs. Pure, table-tested.
public struct AuthChallenge: Sendable, Equatable {
    public var scheme: String
    public var realm: String?

    public init(scheme: String, realm: String? = nil) {
        self.scheme = scheme
        self.realm = realm
    }

    /// The challenges of every given header value, in order. A value may hold several
    /// (`Basic realm="a", Digest realm="b", nonce="x"`): a token followed by a space starts a
    /// new one, a `name=value` pair belongs to the current one.
    public static func parse(_ values: [String]) -> [AuthChallenge] {
        var out: [AuthChallenge] = []
        for value in values {
            var s = Substring(value)
            while true {
                s = s.drop { $0 == " " || $0 == "," || $0 == "\t" }
                guard !s.isEmpty else { break }
                let token = s.prefix { $0 != " " && $0 != "," && $0 != "=" && $0 != "\t" }
                s = s.dropFirst(token.count)
                if s.first == "=" {
                    // A parameter of the current challenge (or a token68 run of '=').
                    s = s.drop { $0 == "=" }
                    let v: String
                    if s.first == "\"" { (v, s) = quoted(s.dropFirst()) } else {
                        let plain = s.prefix { $0 != "," && $0 != " " }
                        v = String(plain)
                        s = s.dropFirst(plain.count)
                    }
                    if token.lowercased() == "realm", !out.isEmpty, out[out.count - 1].realm == nil {
                        out[out.count - 1].realm = v
                    }
                } else if !token.isEmpty {
                    out.append(AuthChallenge(scheme: String(token)))
                } else {
                    s = s.dropFirst()
                }
            }
        }
        return out
    }

    /// A quoted-string's content (backslash escapes undone) and what follows it.
    private static func quoted(_ s: Substring) -> (String, Substring) {
        var out = "", rest = s, escaped = false
        while let c = rest.first {
            rest = rest.dropFirst()
            if escaped { out.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" {
                return (out, rest)
            } else { out.append(c) }
        }
        return (out, rest)
    }
}
