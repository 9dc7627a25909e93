import Foundation
import TransferModel

/// A bandwidth limit as people type it (`500K`, `2M`, `1.5M`, `0`: bytes per second, K M G
/// 1024-based as curl's `--limit-rate`) and as the header shows it. The monitor's prompt and
/// `transfertop control … limit` read the same text.
public enum RateText {
    /// The largest limit taken: 1 TiB/s (libcurl's curl_off_t holds far more; no link is
    /// faster, and a typo of many digits is refused instead of meaning "unlimited").
    public static let maximum: Int64 = 1 << 40

    /// Bytes per second (0: no limit), or nil when the text is not a rate.
    public static func parse(_ text: String) -> Int64? {
        var typed = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
        if typed.hasSuffix("/S") { typed = typed.dropLast(2) }
        let (t, shift) = Units.splitSizeSuffix(typed)
        let scale = Double(Int64(1) << shift)
        guard !t.isEmpty, t.count <= 16, t.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              t.filter({ $0 == "." }).count <= 1, let value = Double(t), value.isFinite else { return nil }
        let bytes = (value * scale).rounded()
        guard bytes >= 0, bytes <= Double(maximum) else { return nil }
        // A fraction of a byte per second would be 0, which means "none": refused.
        if bytes == 0 && value != 0 { return nil }
        return Int64(bytes)
    }

    /// What a refused rate is told, for the status line and `control`.
    public static func refusal(_ text: String) -> String {
        "a rate is bytes per second, with K, M or G (500K, 2M), or 0 for none; not '\(SafeQuote.quote(text, limit: 20))'"
    }

    /// `500 KiB/s`, `none` for 0.
    public static func shown(_ bytesPerSecond: Int64) -> String {
        bytesPerSecond > 0 ? Units.bytes(bytesPerSecond) + "/s" : "none"
    }

    /// The prompt's starting text: the limit as typed back (`500K`), empty for none.
    public static func typed(_ bytesPerSecond: Int64) -> String {
        guard bytesPerSecond > 0 else { return "" }
        for (suffix, unit) in [("G", Int64(1) << 30), ("M", Int64(1) << 20), ("K", Int64(1) << 10)]
        where bytesPerSecond % unit == 0 { return "\(bytesPerSecond / unit)\(suffix)" }
        return String(bytesPerSecond)
    }
}
