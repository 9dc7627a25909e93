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
        out += "\""
        // Most strings (hashes, file names, dates) need no escape: one scan of their bytes,
        // then appended whole instead of scalar by scalar (the completion journal's line per
        // downloaded file spent most of its time here). 0xE2 starts U+2028/U+2029.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u.value == 0x2028 || u.value == 0x2029:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}
