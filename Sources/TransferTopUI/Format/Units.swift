import TransferModel
/// Human numbers for narrow columns: bytes, speeds, durations. Every result fits a fixed
/// width (bytes ≤ 8 columns, speed ≤ 10, ETA ≤ 6), so tables never jitter.
public enum Units {
    private static let suffixes = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]

    /// `512 B`, `1.5 KiB`, `12.3 MiB`, `123 MiB` (IEC units; one decimal below 100).
    public static func bytes(_ count: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        appendBytes(count, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `bytes(count)` written into `out`.
    public static func appendBytes(_ count: Int64, to out: inout [UInt8]) {
        guard count >= 1024 else {
            ByteText.appendInteger(Int(Swift.max(0, count)), to: &out)
            out.append(contentsOf: [0x20, UInt8(ascii: "B")])
            return
        }
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < suffixes.count - 1 {
            value /= 1024
            unit += 1
        }
        appendDecimal(value, to: &out)
        out.append(0x20)
        ByteText.append(suffixes[unit], to: &out)
    }

    /// `1.2 MiB/s`; `0 B/s` when idle.
    public static func speed(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "0 B/s" }
        return bytes(Int64(Swift.min(bytesPerSecond, 9e18))) + "/s"
    }

    /// `42s`, `1m05s`, `2h03m`, `3d04h`; `--` when unknown (nil, infinite or negative).
    public static func eta(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "--" }
        let s = NumericBounds.clampedInt(seconds.rounded(.up))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" + twoDigits(s % 60) + "s" }
        if s < 86400 { return "\(s / 3600)h" + twoDigits(s / 60 % 60) + "m" }
        return s / 86400 > 99 ? ">99d" : "\(s / 86400)d" + twoDigits(s / 3600 % 24) + "h"
    }

    /// Milliseconds for the waterfall: `0.4ms`, `12ms`, `1234ms`, `12.3s`.
    public static func millis(_ ms: Double) -> String {
        if !(ms < 1e15) { return "--" }  // also nan: never trap on a bad timing
        if ms < 1 { return "\(decimal(Swift.max(0, ms)))ms" }
        if ms < 10_000 { return "\(Int(ms.rounded()))ms" }
        return "\(decimal(ms / 1000))s"
    }

    /// One decimal below 100, none above: `1.5`, `12.3`, `123`.
    static func decimal(_ value: Double) -> String {
        var out: [UInt8] = []
        appendDecimal(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendDecimal(_ value: Double, to out: inout [UInt8]) {
        if value >= 99.95 { return ByteText.appendInteger(NumericBounds.clampedInt(value.rounded()), to: &out) }
        let tenths = NumericBounds.clampedInt((value * 10).rounded())
        ByteText.appendInteger(tenths / 10, to: &out)
        out.append(UInt8(ascii: "."))
        ByteText.appendInteger(tenths % 10, to: &out)
    }

    /// `1 task`, `3 tasks`: a count with its noun, plural when it is not one.
    public static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

/// Padding and truncation by display width (not by `Character` count, which is wrong for CJK).
public enum TextFit {
    /// `text` cut to `width` columns (an ellipsis marks the cut), padded with spaces to `width`.
    public static func pad(_ text: String, _ width: Int, ellipsis: String = "…") -> String {
        let fitted = truncate(text, width, ellipsis: ellipsis)
        return fitted + String(repeating: " ", count: Swift.max(0, width - DisplayWidth.of(fitted)))
    }

    /// Right-aligned in `width` columns.
    public static func padLeft(_ text: String, _ width: Int) -> String {
        let fitted = truncate(text, width, ellipsis: "")
        return String(repeating: " ", count: Swift.max(0, width - DisplayWidth.of(fitted))) + fitted
    }

    /// At most `width` columns, cut in the middle so both ends survive: a URL keeps its host
    /// and its file name (`example.test/a…/big.iso`). The tail gets the larger half.
    public static func middle(_ text: String, _ width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        guard DisplayWidth.of(text) > width else { return text }
        let room = width - DisplayWidth.of(ellipsis)
        guard room >= 2 else { return truncate(text, width, ellipsis: ellipsis) }
        let head = prefix(text, room / 2)
        let tail = String(prefix(String(text.reversed()), room - DisplayWidth.of(head)).reversed())
        return head + ellipsis + tail
    }

    /// The longest start of `text` that fits in `width` columns.
    static func prefix(_ text: String, _ width: Int) -> String {
        var out = ""
        var used = 0
        for c in text {
            let w = DisplayWidth.of(c)
            if used + w > width { break }
            out.append(c)
            used += w
        }
        return out
    }

    /// At most `width` columns; when cut, the last column is the ellipsis.
    public static func truncate(_ text: String, _ width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        guard DisplayWidth.of(text) > width else { return text }
        let room = width - DisplayWidth.of(ellipsis)
        return prefix(text, room) + (room >= 0 ? ellipsis : "")
    }
}

extension Units {
    /// A size as people type it, upper-cased: its number and the power of two its suffix stands
    /// for (K 10, M 20, G 30: 1024-based, as curl's), with or without a trailing `B`/`iB`.
    /// `--max-filesize`-style options and the bandwidth limits (`RateText`) read sizes this way.
    public static func splitSizeSuffix(_ text: Substring) -> (number: Substring, shift: Int) {
        var t = text
        if t.hasSuffix("IB") { t = t.dropLast(2) } else if t.hasSuffix("B") { t = t.dropLast() }
        let shift = switch t.last {
        case "K": 10
        case "M": 20
        case "G": 30
        default: 0
        }
        return (shift > 0 ? t.dropLast() : t, shift)
    }
}
