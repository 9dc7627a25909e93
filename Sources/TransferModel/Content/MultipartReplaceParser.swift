import Foundation

/// Splits a `multipart/x-mixed-replace` body (a server push of successive parts, e.g. a camera
/// feed) into its parts as the bytes stream in, so a data task can hand each part over with its
/// own response, as URLSession does (DECISIONS 68). Pure; fed by the engine.
///
/// RFC 2046 5.1.1: parts are separated by `--boundary` at the start of a line; the line break
/// before it belongs to the delimiter; `--boundary--` ends the body. LF without CR is accepted
/// too. Bytes of a part are emitted as soon as they cannot be the start of a delimiter, so a
/// long part streams instead of being held whole.
public struct MultipartReplaceParser: Sendable {
    public enum Event: Equatable, Sendable {
        /// A part begins: its header fields.
        case part([HTTPHeader])
        case data(Data)
        /// The closing delimiter arrived; what follows is ignored.
        case end
    }

    /// Header blocks larger than this make the body unparseable (nothing more is emitted).
    public static let maximumHeaderBytes = 64 * 1024

    private enum State { case preamble, delimiterLine, headers, body, done }
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var buffer: [UInt8] = []
    /// In `body`: no byte of the current part has been emitted or kept yet, so a delimiter at
    /// the buffer's very start (an empty part) counts.
    private var atPartStart = false

    public init(boundary: String) {
        delimiter = Array("--\(boundary)".utf8)
    }

    /// The boundary parameter of a `multipart/x-mixed-replace` Content-Type, nil for any other
    /// type or a missing or unusable boundary (RFC 2046: 1-70 characters).
    public static func boundary(contentType: String) -> String? {
        let params = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard params.first?.lowercased() == "multipart/x-mixed-replace" else { return nil }
        for p in params.dropFirst() {
            let kv = p.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2, kv[0].lowercased() == "boundary" else { continue }
            var b = Substring(kv[1])
            if b.count >= 2, b.first == "\"", b.last == "\"" { b = b.dropFirst().dropLast() }
            // Some servers repeat the leading dashes in the parameter; the delimiter adds its own.
            guard (1...70).contains(b.count), b.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 32 && $0.value != 127 })
            else { return nil }
            return String(b)
        }
        return nil
    }

    public mutating func feed(_ data: Data) -> [Event] {
        guard state != .done else { return [] }
        buffer.append(contentsOf: data)
        var events: [Event] = []
        while step(&events) {}
        return events
    }

    /// The body ended: bytes held back (they could have begun a delimiter) belong to the part.
    public mutating func finish() -> [Event] {
        defer { buffer = []; state = .done }
        if state == .body, !buffer.isEmpty { return [.data(Data(buffer))] }
        return []
    }

    /// One transition; false when more bytes are needed.
    private mutating func step(_ events: inout [Event]) -> Bool {
        switch state {
        case .preamble:
            if let at = findDelimiter(allowAtStart: true) {
                buffer.removeFirst(at)
                state = .delimiterLine
                return true
            }
            // The preamble is ignored; keep only what could start a delimiter.
            let keep = delimiter.count + 1
            if buffer.count > keep { buffer.removeFirst(buffer.count - keep) }
            return false
        case .delimiterLine:
            // `buffer` starts with the delimiter: `--` after it ends the body; otherwise the
            // rest of the line (transport padding) is skipped.
            guard buffer.count >= delimiter.count + 2 else { return false }
            if buffer[delimiter.count] == UInt8(ascii: "-") && buffer[delimiter.count + 1] == UInt8(ascii: "-") {
                events.append(.end)
                buffer = []
                state = .done
                return false
            }
            guard let lf = buffer[delimiter.count...].firstIndex(of: UInt8(ascii: "\n")) else {
                if buffer.count > Self.maximumHeaderBytes { state = .done; buffer = [] }
                return false
            }
            buffer.removeFirst(lf + 1)
            state = .headers
            return true
        case .headers:
            guard let (end, next) = blankLine() else {
                if buffer.count > Self.maximumHeaderBytes { state = .done; buffer = [] }
                return false
            }
            events.append(.part(Self.parseHeaders(buffer[..<end])))
            buffer.removeFirst(next)
            state = .body
            atPartStart = true
            return true
        case .body:
            if let at = findDelimiter(allowAtStart: atPartStart) {
                var end = at
                if end > 0 && buffer[end - 1] == UInt8(ascii: "\n") { end -= 1 }
                if end > 0 && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                if end > 0 { events.append(.data(Data(buffer[..<end]))) }
                buffer.removeFirst(at)
                state = .delimiterLine
                return true
            }
            // Emit all but a tail that could be CR LF plus the start of a delimiter.
            let keep = delimiter.count + 2
            if buffer.count > keep {
                let n = buffer.count - keep
                events.append(.data(Data(buffer[..<n])))
                buffer.removeFirst(n)
                atPartStart = false
            }
            return false
        case .done:
            return false
        }
    }

    /// Index of a delimiter that starts a line (after LF, or at 0 when allowed).
    private func findDelimiter(allowAtStart: Bool) -> Int? {
        guard buffer.count >= delimiter.count else { return nil }
        let first = delimiter[0]
        var i = 0
        while i + delimiter.count <= buffer.count {
            if buffer[i] == first, (i == 0 ? allowAtStart : buffer[i - 1] == UInt8(ascii: "\n")),
               buffer[i..<(i + delimiter.count)].elementsEqual(delimiter) {
                return i
            }
            i += 1
        }
        return nil
    }

    /// The end of the header block and the index after its blank line.
    private func blankLine() -> (Int, Int)? {
        var i = 0
        var lineStart = 0
        while i < buffer.count {
            if buffer[i] == UInt8(ascii: "\n") {
                let line = buffer[lineStart..<i]
                if line.isEmpty || (line.count == 1 && line.first == UInt8(ascii: "\r")) { return (lineStart, i + 1) }
                lineStart = i + 1
            }
            i += 1
        }
        return nil
    }

    private static func parseHeaders(_ bytes: ArraySlice<UInt8>) -> [HTTPHeader] {
        let text = String(decoding: bytes, as: UTF8.self)
        var headers: [HTTPHeader] = []
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = raw.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            headers.append(HTTPHeader(name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return headers
    }
}
