/// Text from a server or a file made safe to print on a terminal: every scalar `UnicodeSafety`
/// calls unsafe (C0 and C1 controls, DEL, bidi overrides) is written as a visible escape
/// (`\x1B`, `\u{202E}`), so an ESC or OSC sequence arrives as plain characters and cannot
/// move the cursor, retitle the window or hide text. A tab is kept where the caller says it
/// is legitimate. Pure; text with nothing to escape is returned as it is, uncopied.
public enum TerminalText {
    public static func safe(_ text: String, keepingTabs: Bool = false) -> String {
        func unsafe(_ s: Unicode.Scalar) -> Bool {
            UnicodeSafety.isUnsafe(s) && !(keepingTabs && s == "\t")
        }
        // Printable ASCII, the common case, is checked by bytes (line mode prints a line per event).
        if !text.utf8Contains(where: { $0 < 0x20 || $0 >= 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: unsafe) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for s in text.unicodeScalars {
            if unsafe(s) { out += SafeQuote.escaped(s) } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// Whether `text` holds a scalar `safe` would escape (a tab counts as unsafe here): for
    /// refusing such text where it enters (a `-A` value, a job file's session name).
    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: UnicodeSafety.isUnsafe)
    }
}
