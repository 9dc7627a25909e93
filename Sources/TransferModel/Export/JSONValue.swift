/// A JSON value whose objects keep their key order, so exports are byte-for-byte deterministic
/// (JSONSerialization's key order is unspecified on Linux).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    /// Written with three decimals (milliseconds), or as an integer when whole.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }

    /// Compact JSON text; `pretty` indents by two spaces.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(to: &out, indent: pretty ? 0 : nil)
        return out
    }

    private func write(to out: inout String, indent: Int?) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .number(let d): out += Self.number(d)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            writeContainer("[", "]", items.count, to: &out, indent: indent) { i, out, inner in
                items[i].write(to: &out, indent: inner)
            }
        case .object(let members):
            writeContainer("{", "}", members.count, to: &out, indent: indent) { i, out, inner in
                Self.writeString(members[i].0, to: &out)
                out += indent == nil ? ":" : ": "
                members[i].1.write(to: &out, indent: inner)
            }
        }
    }

    private func writeContainer(_ open: String, _ close: String, _ count: Int, to out: inout String,
                                indent: Int?, item: (Int, inout String, Int?) -> Void) {
        out += open
        guard count > 0 else { out += close; return }
        let inner = indent.map { $0 + 2 }
        for i in 0..<count {
            if i > 0 { out += "," }
            if let inner { out += "\n" + String(repeating: " ", count: inner) }
            item(i, &out, inner)
        }
        if let indent { out += "\n" + String(repeating: " ", count: indent) }
        out += close
    }

    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return ExportTimestamp.milliseconds(d)
    }

    /// `s` as a JSON string literal, quotes included.
    public static func quoted(_ s: String) -> String {
        var out = ""
        writeString(s, to: &out)
        return out
    }

    package static func writeString(_ s: String, to out: inout String) {
        // Most strings (hashes, file names, dates) need no escape: one scan of their bytes,
        // then appended whole. 0xE2 starts U+2028/U+2029.
        if !s.utf8Contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) {
            out += "\""
            out += s
            out += "\""
            return
        }
        var bytes: [UInt8] = []
        appendString(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// `s` as a JSON string literal, quotes included, appended as UTF-8 to `out`: runs of bytes
    /// that need no escape are copied whole (a line of the completion journal is built this way,
    /// one per downloaded file). Escapes `"`, `\\`, control characters (`\n`, `\r`, `\t`, else
    /// `\u00xx`) and U+2028/U+2029, which JavaScript does not allow in a string.
    package static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        var text = s
        text.withUTF8 { bytes in
            var run = 0
            var i = 0
            func escape(_ replacement: StaticString, skipping count: Int) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                i += count
                run = i
            }
            while i < bytes.count {
                switch bytes[i] {
                case 0x22: escape("\\\"", skipping: 1)
                case 0x5C: escape("\\\\", skipping: 1)
                case 0x0A: escape("\\n", skipping: 1)
                case 0x0D: escape("\\r", skipping: 1)
                case 0x09: escape("\\t", skipping: 1)
                case let b where b < 0x20:
                    escape("\\u00", skipping: 0)
                    out.append(HexDigits.digit(b >> 4))
                    out.append(HexDigits.digit(b & 0xF))
                    i += 1
                    run = i
                case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && bytes[i + 2] == 0xA8:
                    escape("\\u2028", skipping: 3)
                case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && bytes[i + 2] == 0xA9:
                    escape("\\u2029", skipping: 3)
                default: i += 1
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
        }
        out.append(0x22)
    }
}
