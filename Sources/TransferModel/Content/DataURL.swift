import Foundation

/// A `data:` URL (RFC 2397) taken apart: its media type, charset and decoded bytes.
///
/// `data:[<mediatype>][;base64],<data>`. Without a media type the RFC's default applies,
/// `text/plain;charset=US-ASCII`; `data:;charset=utf-8,…` keeps `text/plain` with that
/// charset. The data is percent-decoded first (both forms may carry `%XX`), then, for the
/// base64 form, base64-decoded (whitespace ignored, missing `=` padding tolerated, as
/// browsers do). Anything else is refused with the reason: no silent guesses.
public struct DataURL: Sendable, Equatable {
    /// `type/subtype`, lower-cased.
    public var mediaType: String
    /// Parameters other than `charset` and `base64`, in order, names lower-cased.
    public var parameters: [(name: String, value: String)]
    /// The `charset` parameter, lower-cased (URLResponse's `textEncodingName`).
    public var charset: String?
    public var isBase64: Bool
    public var data: Data

    public static func == (a: DataURL, b: DataURL) -> Bool {
        a.mediaType == b.mediaType && a.charset == b.charset && a.isBase64 == b.isBase64 && a.data == b.data
            && a.parameters.map(\.name) == b.parameters.map(\.name) && a.parameters.map(\.value) == b.parameters.map(\.value)
    }

    /// The Content-Type this URL stands for: `type/subtype` with its parameters and charset.
    public var contentType: String {
        var s = mediaType
        for p in parameters { s += ";\(p.name)=\(p.value)" }
        if let charset { s += ";charset=\(charset)" }
        return s
    }

    public static func parse(_ text: String) throws(DataURLError) -> DataURL {
        let bytes = Array(text.utf8)
        guard bytes.count >= 5, String(decoding: bytes[0..<5], as: UTF8.self).lowercased() == "data:" else {
            throw DataURLError("it does not start with 'data:'")
        }
        guard let comma = bytes[5...].firstIndex(of: UInt8(ascii: ",")) else {
            throw DataURLError("it has no ',' before its data")
        }
        let header = try percentDecoded(bytes[5..<comma], what: "media type")
        var fields = String(decoding: header, as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var isBase64 = false
        if fields.count > 1, fields.last?.lowercased() == "base64" {
            isBase64 = true
            fields.removeLast()
        }
        let type = fields.removeFirst().lowercased()
        var result = DataURL(mediaType: type.isEmpty ? "text/plain" : type, parameters: [], charset: nil,
                             isBase64: isBase64, data: Data())
        if type.isEmpty && fields.isEmpty { result.charset = "us-ascii" }
        guard type.isEmpty || isMediaType(type) else {
            throw DataURLError("'\(SafeQuote.quote(type, limit: 40))' is not a media type (type/subtype)")
        }
        for field in fields {
            let kv = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, isToken(kv[0]), !kv[1].isEmpty else {
                throw DataURLError("the parameter '\(SafeQuote.quote(field, limit: 40))' is not name=value")
            }
            let name = kv[0].lowercased()
            let value = kv[1].count >= 2 && kv[1].hasPrefix("\"") && kv[1].hasSuffix("\"")
                ? String(kv[1].dropFirst().dropLast()) : kv[1]
            if name == "charset" {
                if result.charset == nil { result.charset = value.lowercased() }  // the first one counts
            } else {
                result.parameters.append((name, value))
            }
        }
        let payload = try percentDecoded(bytes[(comma + 1)...], what: "data")
        if isBase64 {
            guard let decoded = base64(payload) else { throw DataURLError("its data is not valid base64") }
            result.data = decoded
        } else {
            result.data = Data(payload)
        }
        return result
    }

    static func percentDecoded(_ s: ArraySlice<UInt8>, what: String) throws(DataURLError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = s.startIndex
        while i < s.endIndex {
            let b = s[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < s.endIndex, let hi = HexDigit.value(s[i + 1]), let lo = HexDigit.value(s[i + 2]) else {
                    throw DataURLError("its \(what) has a '%' that is not followed by two hex digits")
                }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(b)
                i += 1
            }
        }
        return out
    }

    /// Base64 without whitespace; `=` padding may be missing (a length of 2 or 3 mod 4).
    static func base64(_ payload: [UInt8]) -> Data? {
        var s = String(decoding: payload.filter { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }, as: UTF8.self)
        switch s.utf8.count % 4 {
        case 2: s += "=="
        case 3: s += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: s)
    }

    static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { b in
            (0x21...0x7E).contains(b) && !"()<>@,;:\\\"/[]?={}".utf8.contains(b)
        }
    }

    static func isMediaType(_ s: String) -> Bool {
        let parts = s.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && isToken(String(parts[0])) && isToken(String(parts[1]))
    }
}

/// Why a `data:` URL was refused, in words (TransferError `.badURL` carries it).
public struct DataURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "malformed data: URL: \(reason)" }
}
