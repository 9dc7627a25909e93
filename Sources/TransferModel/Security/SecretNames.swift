/// Decides whether a query parameter or header *name* looks like it carries a secret.
///
/// A name is split into words at `-`, `_`, `.`, spaces and camelCase boundaries
/// (`X-Amz-Security-Token` → x, amz, security, token; `apiKey` → api, key) after
/// percent-decoding. It is secret when one word is a secret word, or when the whole name,
/// squashed, ends with a compound such as `apikey` or `accesstoken`.
public enum SecretNames {
    static let secretWords: Set<String> = [
        "token", "key", "apikey", "password", "passwd", "pwd", "pass", "passphrase", "secret",
        "sig", "signature", "auth", "authorization", "session", "sessionid", "sid", "credential",
        "credentials", "jsessionid", "phpsessid", "cookie", "otp", "jwt", "bearer", "csrf", "xsrf",
    ]
    static let secretSuffixes = [
        "apikey", "accesskey", "secretkey", "privatekey", "token", "secret", "password", "passwd",
        "signature", "credential", "credentials", "sessionid", "sessid", "authkey",
    ]
    /// Headers always masked, whatever the word rule says.
    static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2",
        "x-api-key", "x-auth-token", "x-amz-security-token", "x-csrf-token", "x-xsrf-token",
    ]

    public static func isSecretParameter(_ rawName: String) -> Bool {
        let name = percentDecoded(rawName)
        let words = splitWords(name)
        if words.contains(where: secretWords.contains) { return true }
        let squashed = words.joined()
        return secretSuffixes.contains { squashed.hasSuffix($0) }
    }

    public static func isSecretHeader(_ name: String) -> Bool {
        secretHeaders.contains(name.lowercased()) || isSecretParameter(name)
    }

    /// Lowercased words of a name; camelCase boundaries count as separators.
    static func splitWords(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for c in name {
            if c == "-" || c == "_" || c == "." || c == " " || c == "[" || c == "]" {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if c.isUppercase && previousWasLower && !current.isEmpty {
                words.append(current)
                current = ""
            }
            current += c.lowercased()
            previousWasLower = c.isLowercase || c.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `%5F` → `_`; `+` → space. Invalid escapes are kept as they are (never fails).
    static func percentDecoded(_ s: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(s.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count,
               let hi = HexDigit.value(utf8[i + 1]), let lo = HexDigit.value(utf8[i + 2]) {
                bytes.append(hi << 4 | lo)
                i += 3
            } else {
                bytes.append(utf8[i] == UInt8(ascii: "+") ? UInt8(ascii: " ") : utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
