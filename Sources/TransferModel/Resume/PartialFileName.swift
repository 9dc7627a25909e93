import Foundation

/// Names of downloads in progress kept beside their destination:
/// `.NAME.ttpart`, then `.NAME.2.ttpart`, `.NAME.3.ttpart`… when the name is taken. Hidden
/// (leading dot) so a listing of the output directory shows finished files only, and with a
/// suffix of our own so `transfertop clean` and resume-data checks can recognise them.
public enum PartialFileName {
    public static let suffix = ".ttpart"

    /// The last path component of `url` made safe as one file name: percent-decoded, then
    /// `sanitize`d. The output name and the partial's hidden name both come from here.
    public static func baseName(for url: URL) -> String {
        // A data: URL has no path to name it by: `data` with its media type's extension.
        if url.scheme?.lowercased() == "data" {
            let type = (try? DataURL.parse(url.absoluteString))?.mediaType ?? ""
            return "data." + FileMIMEType.fileExtension(forMediaType: type)
        }
        let last = lastComponent(url.path(percentEncoded: true))
        return sanitize(last.utf8.contains(UInt8(ascii: "%")) ? (last.removingPercentEncoding ?? last) : last)
    }

    /// The last non-empty `/`-separated component of `path` ("" for none), found from the
    /// end: splitting the whole path made an array of every component, per downloaded file.
    package static func lastComponent(_ path: String) -> String {
        let bytes = path.utf8
        let slash = UInt8(ascii: "/")
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == slash { end = bytes.index(before: end) }
        var start = end
        while start > bytes.startIndex, bytes[bytes.index(before: start)] != slash { start = bytes.index(before: start) }
        return String(path[start..<end])
    }

    /// One safe file name: no `/`, `\` or control characters (they become `_`), no bidi
    /// overrides or invisible marks (`evil\u{202E}txt.exe` would show as `evilexe.txt`), no
    /// leading dots (never `.`, `..` or hidden), at most 200 bytes; empty → `index.html`.
    public static func sanitize(_ raw: String) -> String {
        // Fast path, the common case of a list of plain names: printable ASCII without a
        // separator, no leading dot or space, no trailing space, short enough. Every rule
        // below leaves such a name unchanged (it showed in the profile of a
        // small-file run).
        if isPlainASCIIName(raw) { return raw }
        var name = String(raw.unicodeScalars.compactMap { s -> Character? in
            if s == "/" || s == "\\" { return "_" }
            if s.value < 0x20 || (0x7F..<0xA0).contains(s.value) { return "_" }
            if UnicodeSafety.isUnsafe(s) { return nil }
            return Character(s)
        })
        name = name.trimmingCharacters(in: .whitespaces)
        while name.hasPrefix(".") { name.removeFirst() }
        if name.isEmpty { return "index.html" }
        while name.utf8.count > 200 { name.removeLast() }
        return name
    }

    static func isPlainASCIIName(_ raw: String) -> Bool {
        let bytes = raw.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= 200,
              first != UInt8(ascii: "."), first != UInt8(ascii: " "), last != UInt8(ascii: " ") else { return false }
        return !raw.utf8Contains { b in b < 0x20 || b >= 0x7F || b == UInt8(ascii: "/") || b == UInt8(ascii: "\\") }
    }

    /// The hidden name for the `attempt`-th try (1 is the plain one).
    public static func partialName(_ base: String, attempt: Int) -> String {
        attempt <= 1 ? "." + base + suffix : "." + base + ".\(attempt)" + suffix
    }

    /// Whether a file name is one of ours (a dot, something, `.ttpart`).
    public static func isPartialName(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(suffix) && name.count > suffix.count + 1 && !name.contains("/")
    }

    /// The final name a partial was heading for, for listings: `.a.bin.2.ttpart` → `a.bin`.
    public static func finalName(ofPartial name: String) -> String? {
        guard isPartialName(name) else { return nil }
        var core = String(name.dropFirst().dropLast(suffix.count))
        if let dot = core.lastIndex(of: "."), let n = Int(core[core.index(after: dot)...]), n >= 2 {
            core = String(core[..<dot])
        }
        return core
    }
}
