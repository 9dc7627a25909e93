/// `Content-Disposition` (RFC 6266) with `filename*` in RFC 8187's encoding, and the safe file
/// name a client may use from it. Pure: no Foundation.
public struct ContentDisposition: Sendable, Equatable {
    /// `attachment`, `inline` or an extension type, lower-cased.
    public var type: String
    /// The name the server proposed, decoded but not made safe: `filename*` when it decodes,
    /// else `filename`. Never use it as a path; use `safeFilename`.
    public var filename: String?

    public init(type: String, filename: String?) {
        self.type = type
        self.filename = filename
    }

    /// Parses a header value; nil when it has no disposition type.
    public init?(_ value: String) {
        var scanner = Scanner(Array(value.unicodeScalars))
        scanner.skipSpaces()
        let type = scanner.token()
        guard !type.isEmpty else { return nil }
        self.type = type.lowercased()
        var plain: String?
        var extended: String?
        var sawPlain = false, sawExtended = false
        while scanner.skip(";") {
            scanner.skipSpaces()
            let name = scanner.token().lowercased()
            scanner.skipSpaces()
            guard !name.isEmpty, scanner.skip("=") else {
                scanner.skipPast(";")
                continue
            }
            scanner.skipSpaces()
            let (raw, quoted) = scanner.value()
            scanner.skipSpaces()
            // A repeated parameter makes the header invalid (RFC 6266 §4.1); the first one is
            // kept, as browsers do, rather than letting a later one override it.
            if name == "filename", !sawPlain {
                sawPlain = true
                plain = raw
            } else if name == "filename*", !sawExtended {
                sawExtended = true
                // An ext-value is never quoted (RFC 8187 §3.2); browsers ignore a quoted one.
                extended = quoted ? nil : raw.flatMap(Self.decodeExtValue)
            }
        }
        // `filename*` wins whatever the order (RFC 6266 §4.3); one that does not decode is
        // ignored and `filename` stands.
        filename = extended ?? plain
    }

    /// The proposed name made safe as one file name, or nil when nothing usable is left:
    /// only the part after the last `/` or `\` (RFC 6266 §4.3: no path information), then
    /// `PartialFileName.sanitize` (no control or bidi characters, no leading dots, at most 200
    /// bytes).
    public var safeFilename: String? { filename.flatMap(Self.safeName) }

    /// The safe file name from a `Content-Disposition` header value, or nil.
    public static func safeFilename(fromHeader value: String) -> String? { ContentDisposition(value)?.safeFilename }

    static func safeName(_ proposed: String) -> String? {
        var last = Substring(proposed)
        if let cut = last.lastIndex(where: { $0 == "/" || $0 == "\\" }) { last = last[last.index(after: cut)...] }
        let trimmed = last.trimmedSpacesTabs
        guard !trimmed.isEmpty, trimmed != ".", trimmed != ".." else { return nil }
        let safe = PartialFileName.sanitize(trimmed)
        // `sanitize` answers "index.html" for a name with nothing left (all dots, all marks).
        guard !safe.isEmpty, safe != "index.html" || trimmed == "index.html" else { return nil }
        return safe
    }

    /// RFC 8187 `charset'[language]'pct-encoded`; UTF-8 and ISO-8859-1 (the charsets RFC 8187
    /// and RFC 5987 name). Anything else, bad escapes, or invalid UTF-8 → nil.
    static func decodeExtValue(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var utf8 = Array(parts[2].utf8)[...]
        while let b = utf8.first {
            utf8 = utf8.dropFirst()
            if b == UInt8(ascii: "%") {
                guard utf8.count >= 2, let hi = HexDigit.value(utf8[utf8.startIndex]), let lo = HexDigit.value(utf8[utf8.startIndex + 1])
                else { return nil }
                bytes.append(hi << 4 | lo)
                utf8 = utf8.dropFirst(2)
            } else if isAttrChar(b) {
                bytes.append(b)
            } else {
                return nil
            }
        }
        switch parts[0].lowercased() {
        case "utf-8":
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            var out = String.UnicodeScalarView()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): out.append(s)
                case .emptyInput: return String(out)
                case .error: return nil
                }
            }
        case "iso-8859-1":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default:
            return nil
        }
    }

    /// RFC 8187 attr-char: ALPHA DIGIT and `!#$&+-.^_`|~`.
    private static func isAttrChar(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$&+-.^_`|~".utf8.contains(b)
        }
    }

    /// A tiny scanner over a header value's scalars.
    struct Scanner {
        let s: [Unicode.Scalar]
        var i = 0

        init(_ s: [Unicode.Scalar]) { self.s = s }

        mutating func skipSpaces() { while i < s.count, s[i] == " " || s[i] == "\t" { i += 1 } }

        mutating func skip(_ c: Unicode.Scalar) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }

        mutating func skipPast(_ c: Unicode.Scalar) {
            while i < s.count, s[i] != c { i += 1 }
        }

        /// An RFC 9110 token (also taking `*` for `filename*`).
        mutating func token() -> String {
            var out = String.UnicodeScalarView()
            while i < s.count, Self.isTokenChar(s[i]) { out.append(s[i]); i += 1 }
            return String(out)
        }

        /// A quoted-string (backslash escapes undone; unclosed: nil), else everything up to
        /// the next `;`, trimmed (lenient, as browsers, for names with spaces left unquoted).
        mutating func value() -> (text: String?, quoted: Bool) {
            if skip("\"") {
                var out = String.UnicodeScalarView()
                while i < s.count, s[i] != "\"" {
                    if s[i] == "\\", i + 1 < s.count { i += 1 }
                    out.append(s[i])
                    i += 1
                }
                guard skip("\"") else { return (nil, true) }
                return (String(out), true)
            }
            var out = String.UnicodeScalarView()
            while i < s.count, s[i] != ";" { out.append(s[i]); i += 1 }
            let text = String(out).trimmedSpacesTabs
            return (text.isEmpty ? nil : text, false)
        }

        static func isTokenChar(_ c: Unicode.Scalar) -> Bool {
            guard c.value > 0x20, c.value < 0x7F else { return false }
            return !"()<>@,;:\\\"/[]?={} \t".unicodeScalars.contains(c)
        }
    }
}
