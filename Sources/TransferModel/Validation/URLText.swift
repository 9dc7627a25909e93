import Foundation

/// Turns text a user typed into a URL, percent-encoding once. Foundation's
/// `URL(string:)` encodes a string holding non-ASCII characters as a whole, `%` included, so
/// `/a%20b/ü` became `/a%2520b/%C3%BC`: the server was asked for another file. Here only bytes
/// that cannot appear in a URL are encoded; an existing `%XX` escape is kept as it is.
/// `[` and `]` are such bytes outside the host (RFC 3986 keeps them for IPv6 literals): left
/// in `?ids[]=1`, they sent Foundation down the same encode-everything path.
public enum URLText {
    public static func url(_ text: String) -> URL? {
        URL(string: encodeOnce(text))
    }

    public static func encodeOnce(_ given: String) -> String {
        // The common case, a plain URL, needs nothing: checked without copying (a 1,000,000
        // line list spent most of its validation building strings byte by byte).
        if !given.utf8Contains(where: { !keeps($0) }) { return given }
        let text = withASCIIHost(given)
        let bytes = Array(text.utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        let authority = authorityRange(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out.append(contentsOf: bytes[i...i + 2])
                i += 3
                continue
            }
            if keeps(b) || (isBracket(b) && authority.contains(i)) {
                out.append(b)
            } else {
                out.append(contentsOf: [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0xF)]])
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with a host name typed in another script in its IDNA form (`bücher.example` is
    /// `xn--bcher-kva.example`, as curl sends it through libidn2): percent-encoded, it named no
    /// host at all. Foundation's IDNA (UTS 46, through ICU) makes the ASCII form; a name it
    /// cannot convert is left as it was, and the URL is refused as malformed.
    static func withASCIIHost(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let authority = authorityRange(bytes)
        guard !authority.isEmpty else { return text }
        let hostStart = bytes[authority].lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? authority.lowerBound
        let hostEnd = bytes[hostStart..<authority.upperBound].firstIndex(of: UInt8(ascii: ":")) ?? authority.upperBound
        let host = bytes[hostStart..<hostEnd]
        guard host.first != UInt8(ascii: "["), host.contains(where: { $0 >= 0x80 }), !host.contains(UInt8(ascii: "%")) else { return text }
        var components = URLComponents()
        components.host = String(decoding: host, as: UTF8.self)
        guard let ascii = components.encodedHost, !ascii.isEmpty, ascii.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "%") }) else {
            return text
        }
        return String(decoding: bytes[..<hostStart], as: UTF8.self) + ascii + String(decoding: bytes[hostEnd...], as: UTF8.self)
    }

    /// Whether `text` is a plain `http://` or `https://` URL that needs no parser to be known
    /// good: a host of letters, digits, dots and dashes, an optional port from 1 to 65535, then only
    /// characters `keeps` allows (no `%`, no brackets). Such a text is what `URL(string:)`
    /// accepts and gives back unchanged; anything else goes through the parser. A list of
    /// 1,000,000 URLs spent most of its validation in Foundation's parser, and the first
    /// request must start within a second, after the whole list is checked.
    public static func isPlainHTTP(_ text: Substring) -> Bool {
        var text = text
        return text.withUTF8 { isPlainHTTP($0) }
    }

    public static func isPlainHTTP(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func take(_ prefix: StaticString) -> Bool {
            let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            guard b.count - i >= p.count else { return false }
            for k in 0..<p.count {
                let (c, want) = (b[i + k], p[k])
                // Letters in either case; anything else exactly (`| 0x20` alone would let a
                // control byte 0x1A pass for ':').
                guard c == want || ((0x61...0x7A).contains(want) && c == want - 0x20) else { return false }
            }
            i += p.count
            return true
        }
        guard take("http"), take("s://") || take("://") else { return false }
        let hostStart = i
        while i < b.count, isHostByte(b[i]) { i += 1 }
        guard i > hostStart, b[hostStart] != UInt8(ascii: "."), b[hostStart] != UInt8(ascii: "-") else { return false }
        if i < b.count, b[i] == UInt8(ascii: ":") {
            i += 1
            let portStart = i
            var port = 0
            while i < b.count, (0x30...0x39).contains(b[i]) {
                port = port * 10 + Int(b[i] - 0x30)
                i += 1
                if i - portStart > 5 { return false }
            }
            // Outside 1-65535 the parser decides (and `URLCheck` refuses it).
            guard i > portStart, (1...65535).contains(port) else { return false }
        }
        guard i == b.count || b[i] == UInt8(ascii: "/") || b[i] == UInt8(ascii: "?") || b[i] == UInt8(ascii: "#") else {
            return false
        }
        while i < b.count {
            let c = b[i]
            guard keeps(c) else { return false }  // no `%`, no brackets
            i += 1
        }
        return true
    }

    private static func isHostByte(_ c: UInt8) -> Bool {
        (0x61...0x7A).contains(c) || (0x41...0x5A).contains(c) || (0x30...0x39).contains(c)
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "-")
    }

    /// Where the authority (`user@host:port`) lies in `bytes`: after `://` (or a leading `//`,
    /// a Location relative to the scheme), up to the first `/`, `?` or `#`; empty when there
    /// is none.
    static func authorityRange(_ bytes: [UInt8]) -> Range<Int> {
        let slash = UInt8(ascii: "/")
        var start = 0
        if bytes.starts(with: [slash, slash]) {
            start = 2
        } else {
            var i = 0
            while i + 2 < bytes.count, !(bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == slash && bytes[i + 2] == slash) {
                if bytes[i] == slash || bytes[i] == UInt8(ascii: "?") || bytes[i] == UInt8(ascii: "#") { return 0..<0 }
                i += 1
            }
            guard i + 2 < bytes.count else { return 0..<0 }
            start = i + 3
        }
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        return start..<end
    }

    static func isBracket(_ b: UInt8) -> Bool { b == UInt8(ascii: "[") || b == UInt8(ascii: "]") }

    /// RFC 3986 unreserved, reserved and `%`-free printable ASCII that URL parsers accept.
    static func keeps(_ b: UInt8) -> Bool {
        guard b > 0x20, b < 0x7F else { return false }
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
             UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"), UInt8(ascii: "%"),
             UInt8(ascii: "["), UInt8(ascii: "]"):
            return false
        default:
            return true
        }
    }

    static func isHex(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
    }
}
