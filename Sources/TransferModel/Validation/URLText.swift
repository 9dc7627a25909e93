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
        let bytes = Array(text.utf8)
        var out = ""
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out += String(decoding: bytes[i...i + 2], as: UTF8.self)
                i += 3
                continue
            }
            out += keeps(b) ? String(UnicodeScalar(b)) : String(format: "%%%02X", b)
            i += 1
        }
        return out
    }

    /// RFC 3986 unreserved, reserved and `%`-free printable ASCII that URL parsers accept.
    static func keeps(_ b: UInt8) -> Bool {
        guard b > 0x20, b < 0x7F else { return false }
        return !"\"<>\\^`{|}%".utf8.contains(b)
    }

    static func isHex(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
    }
}
