import Digest
import Foundation
import TransferModel

/// Parses a `multipart/form-data` request body as it streams in (the `/form` route, issue
/// 14): per part its name, filename, content type, size and (unless `hashing` is off) SHA-256,
/// holding at most one delimiter's worth of bytes, so a 1 GiB upload costs the test server no
/// memory. A body that does not parse is reported, not guessed at.
struct FormReceiver {
    struct Part: Equatable {
        var name = ""
        var filename: String?
        var contentType: String?
        var size: Int64 = 0
        var sha256 = ""
    }

    enum State { case headers, content, done }

    private let delimiter: [UInt8]
    private let hashing: Bool
    private var pending: [UInt8]
    private var state = State.headers
    private var current = Part()
    private var hasher: SHA256.Hasher?
    private(set) var parts: [Part] = []
    private(set) var problem: String?

    /// `boundary` from the request's Content-Type (nil: the body is reported as not a form).
    init(boundary: String?, hashing: Bool) {
        self.hashing = hashing
        guard let boundary, !boundary.isEmpty else {
            delimiter = []
            pending = []
            problem = "no multipart boundary in Content-Type"
            return
        }
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The body opens with the delimiter minus its CRLF: prepending one makes every
        // delimiter look the same.
        pending = Array("\r\n".utf8)
        state = .content  // an empty preamble "part", dropped when the first delimiter ends it
        current.name = "\u{0}preamble"
    }

    static func boundary(fromContentType value: String?) -> String? {
        guard let value else { return nil }
        for param in value.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2, kv[0].lowercased() == "boundary" { return kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard problem == nil, state != .done else { return }
        pending.append(contentsOf: bytes)
        var progressed = true
        while progressed, problem == nil, state != .done {
            progressed = step()
        }
    }

    /// Ends the body: the parts, or why it is not a well-formed form.
    func finish() -> (parts: [Part], problem: String?) {
        if let problem { return ([], problem) }
        guard state == .done else { return ([], "the body ended before the closing delimiter") }
        return (parts, nil)
    }

    private mutating func step() -> Bool {
        switch state {
        case .headers:
            guard let end = find(Array("\r\n\r\n".utf8), in: pending) else { return false }
            parseHeaders(String(decoding: pending[..<end], as: UTF8.self))
            pending.removeFirst(end + 4)
            state = .content
            hasher = hashing ? SHA256.Hasher() : nil
            return true
        case .content:
            if let at = find(delimiter, in: pending) {
                take(pending[..<at])
                // After the delimiter: "--" ends the body, CRLF starts the next part.
                guard pending.count >= at + delimiter.count + 2 else {
                    keepFrom(at)
                    return false
                }
                let after = Array(pending[(at + delimiter.count)..<(at + delimiter.count + 2)])
                closePart()
                pending.removeFirst(at + delimiter.count + 2)
                if after == Array("--".utf8) {
                    state = .done
                } else if after == Array("\r\n".utf8) {
                    state = .headers
                    current = Part()
                } else {
                    problem = "a delimiter is followed by neither CRLF nor --"
                }
                return true
            }
            // No delimiter yet: all but a possible delimiter prefix at the end is content.
            let keep = min(pending.count, delimiter.count - 1)
            take(pending[..<(pending.count - keep)])
            pending.removeFirst(pending.count - keep)
            return false
        case .done:
            return false
        }
    }

    private mutating func keepFrom(_ at: Int) { pending.removeFirst(at) }

    private mutating func take(_ bytes: ArraySlice<UInt8>) {
        current.size += Int64(bytes.count)
        if hasher != nil { bytes.withUnsafeBytes { hasher!.update($0) } }
    }

    private mutating func closePart() {
        if current.name == "\u{0}preamble" { return }
        current.sha256 = hasher?.finalizeHex() ?? ""
        hasher = nil
        parts.append(current)
    }

    private mutating func parseHeaders(_ text: String) {
        for line in text.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-type" { current.contentType = value }
            if name == "content-disposition" {
                current.name = Self.quotedParameter("name", in: value) ?? ""
                current.filename = Self.quotedParameter("filename", in: value)
            }
        }
    }

    /// `key="value"` from a Content-Disposition value (escaped as HTML forms do, so a value
    /// holds no quote).
    static func quotedParameter(_ key: String, in value: String) -> String? {
        for param in value.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == key else { continue }
            return kv[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// The first index of `needle` in `hay`: `memchr` to each candidate first byte, then a
    /// compare (fast in a debug or sanitizer build too, where the tests send 256 MiB forms).
    private func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        let last = hay.count - needle.count
        return hay.withUnsafeBytes { h -> Int? in
            guard let base = h.baseAddress else { return nil }
            var i = 0
            while i <= last {
                guard let hit = memchr(base + i, Int32(needle[0]), last - i + 1) else { return nil }
                i = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + i, needle, needle.count) == 0 { return i }
                i += 1
            }
            return nil
        }
    }
}

extension FormReceiver {
    /// `{"bodyLength": n, "parts": [{"name", "filename", "contentType", "size", "sha256"}]}`,
    /// or `{"bodyLength": n, "error": "..."}` for a body that is not a well-formed form.
    func json(bodyLength: Int64) -> String {
        let (parts, problem) = finish()
        if let problem { return "{\"bodyLength\":\(bodyLength),\"error\":\(JSONValue.quoted(problem))}" }
        let items = parts.map { p in
            "{\"name\":\(JSONValue.quoted(p.name)),\"filename\":\(p.filename.map(JSONValue.quoted) ?? "null"),"
                + "\"contentType\":\(p.contentType.map(JSONValue.quoted) ?? "null"),\"size\":\(p.size),"
                + "\"sha256\":\(JSONValue.quoted(p.sha256))}"
        }
        return "{\"bodyLength\":\(bodyLength),\"parts\":[\(items.joined(separator: ","))]}"
    }
}
