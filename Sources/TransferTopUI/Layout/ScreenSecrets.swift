import TransferModel

/// Secrets never reach the screen. Credential headers show as `••••`; other values
/// and URLs go through TransferModel's `Redaction`, the same rules the exporters use.
public enum ScreenSecrets {
    /// Headers whose whole value is a credential (compared case-insensitively).
    public static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2"]

    public static func mask(utf8: Bool) -> String { utf8 ? "••••" : "****" }

    /// The value to show and whether it was masked.
    public static func headerValue(_ h: HTTPHeader, utf8: Bool) -> (text: String, masked: Bool) {
        if credentialHeaders.contains(h.name.lowercased()) { return (mask(utf8: utf8), true) }
        let redacted = Redaction.redactHeaderValue(name: h.name, value: h.value)
        return (redacted, redacted != h.value)
    }

    public static func url(_ url: String) -> String { Redaction.redactURL(url) }
}
