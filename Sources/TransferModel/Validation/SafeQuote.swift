/// How user input is quoted in an error message: at most `limit` characters, control
/// and bidi characters escaped (a terminal must not interpret them), credentials redacted.
/// A message must help find the mistake, never echo a password or a file's secret first line.
public enum SafeQuote {
    public static func quote(_ text: String, limit: Int = 60) -> String {
        let redacted = Redaction.redactText(text)
        var out = ""
        var count = 0
        for scalar in redacted.unicodeScalars {
            if count >= limit { out += "…"; break }
            out += escaped(scalar)
            count += 1
        }
        return out
    }

    static func escaped(_ s: Unicode.Scalar) -> String {
        if UnicodeSafety.isUnsafe(s) {
            return s.value <= 0xFF ? "\\x" + hex(s.value, 2) : "\\u{" + hex(s.value, 4) + "}"
        }
        return String(s)
    }

    static func hex(_ v: UInt32, _ width: Int) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - h.count)) + h
    }
}

/// Scalars that must never reach a terminal or a file name: C0/C1 controls, DEL, and the
/// bidirectional overrides and isolates that make `evil\u{202E}txt.exe` read as `evilexe.txt`.
public enum UnicodeSafety {
    public static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return true }
        if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) { return true }
        return v == 0x200E || v == 0x200F || v == 0x061C || v == 0xFEFF
    }
}
