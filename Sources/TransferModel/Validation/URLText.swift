import Foundation

/// Turns text a user typed into a URL, percent-encoding once (issue 9). Foundation's
/// `URL(string:)` encodes a string holding non-ASCII characters as a whole, `%` included, so
/// `/a%20b/ü` became `/a%2520b/%C3%BC`: the server was asked for another file. Here only bytes
/// that cannot appear in a URL are encoded; an existing `%XX` escape is kept as it is.
public enum URLText {
    public static func url(_ text: String) -> URL? {
        URL(string: encodeOnce(text))
    }

    public static func encodeOnce(_ text: String) -> String {
        // The common case, a plain URL, needs nothing: checked without copying (a 1,000,000
        // line list spent most of its validation building strings byte by byte, issue 8).
        if text.utf8.allSatisfy(keeps) { return text }
        let bytes = Array(text.utf8)
        let digits = Array("0123456789ABCDEF".utf8)
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
            if keeps(b) {
                out.append(b)
            } else {
                out.append(contentsOf: [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0xF)]])
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 unreserved, reserved and `%`-free printable ASCII that URL parsers accept.
    static func keeps(_ b: UInt8) -> Bool {
        guard b > 0x20, b < 0x7F else { return false }
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
             UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"), UInt8(ascii: "%"):
            return false
        default:
            return true
        }
    }

    static func isHex(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
    }
}
