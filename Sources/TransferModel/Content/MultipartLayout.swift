import Foundation

/// The wire layout of a `multipart/form-data` body (RFC 7578), without reading any file: the
/// bytes around each part are made here, a file part's content stays a reference with its
/// size, so a 2 GiB part costs no memory. Pure: the sizes are given.
public struct MultipartLayout: Sendable, Equatable {
    /// A piece of the body: bytes held in memory, `length` bytes of a file from offset 0, or
    /// (a segmented upload's segment) `length` bytes of a file from `offset`.
    public enum Segment: Sendable, Equatable {
        case bytes(Data)
        case file(path: String, length: Int64)
        case fileRange(path: String, offset: Int64, length: Int64)

        public var length: Int64 {
            switch self {
            case .bytes(let d): return Int64(d.count)
            case .file(_, let n), .fileRange(_, _, let n): return n
            }
        }
    }

    /// One form field as the caller described it.
    public struct Part: Sendable, Equatable {
        public enum Content: Sendable, Equatable {
            case bytes(Data)
            case file(path: String, length: Int64)
        }

        public var name: String
        public var filename: String?
        public var contentType: String?
        public var content: Content

        public init(name: String, filename: String? = nil, contentType: String? = nil, content: Content) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.content = content
        }
    }

    public let boundary: String
    public let segments: [Segment]

    /// The request's `Content-Type`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The body's length: every part's size is known up front, so it is sent with a
    /// `Content-Length` (no chunked encoding, which some servers refuse for forms).
    public var length: Int64 { segments.reduce(0) { $0 + $1.length } }

    public init(parts: [Part], boundary: String) {
        self.boundary = boundary
        var segments: [Segment] = []
        var pending = Data()
        for part in parts {
            pending.append(Data(Self.head(of: part, boundary: boundary).utf8))
            switch part.content {
            case .bytes(let d): pending.append(d)
            case .file(let path, let length):
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.file(path: path, length: length))
            }
            pending.append(Data("\r\n".utf8))
        }
        pending.append(Data("--\(boundary)--\r\n".utf8))
        segments.append(.bytes(pending))
        self.segments = segments
    }

    /// The delimiter and headers before a part's content.
    static func head(of part: Part, boundary: String) -> String {
        var disposition = "form-data; name=\"\(escape(part.name))\""
        if let f = part.filename { disposition += "; filename=\"\(escape(f))\"" }
        var head = "--\(boundary)\r\nContent-Disposition: \(disposition)\r\n"
        let type = part.contentType ?? (part.filename.map(Self.contentType(forFilename:)))
        if let type { head += "Content-Type: \(type)\r\n" }
        return head + "\r\n"
    }

    /// A name or filename inside quotes, escaped as browsers do (HTML's form encoding, which
    /// curl's `-F` and the servers that parse forms follow): `"` as %22, CR as %0D, LF as
    /// %0A, so no value can end the header or start another.
    public static func escape(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": out += "%22"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// A boundary of 32 random letters and digits after dashes: it cannot occur in a
    /// quoted header value and, with 190 bits of chance, not in the content either.
    public static func randomBoundary() -> String {
        let chars = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var g = SystemRandomNumberGenerator()
        return "----TransferKit" + String((0..<32).map { _ in chars[Int(g.next(upperBound: UInt(chars.count)))] })
    }

    /// The content type of a file part from its name's extension, as curl guesses it for
    /// `-F name=@file`; `application/octet-stream` for anything else.
    public static func contentType(forFilename name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        return knownTypes[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    static let knownTypes: [String: String] = [
        "txt": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "xml": "application/xml", "json": "application/json", "js": "application/javascript",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "svg": "image/svg+xml",
        "webp": "image/webp", "mp4": "video/mp4", "mp3": "audio/mpeg", "wav": "audio/wav",
    ]
}
