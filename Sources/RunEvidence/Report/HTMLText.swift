/// Text made safe for HTML: every character with a meaning in markup or in an attribute
/// value becomes an entity, and control characters (which HTML forbids) become U+FFFD. All
/// text from a run (URLs, error messages, host names, the file's name) passes through here.
public enum HTMLText {
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(c)
            case _ where c.value < 0x20 || (0x7F...0x9F).contains(c.value): out += "\u{FFFD}"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A number for a style or data attribute: at most four decimals, never exponent notation.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        var s = String(format: "%.4f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }
}
