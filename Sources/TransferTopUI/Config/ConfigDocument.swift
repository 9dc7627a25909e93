import Foundation
import TOMLKit

/// A TOML syntax error with its position, from toml++ (through TOMLKit).
public struct ConfigSyntaxError: Error, Sendable, Equatable {
    public var line: Int
    public var column: Int
    public var message: String
}

/// A parsed TOML 1.0 document (job files, themes, key bindings), with the line each table and
/// key was written on, so a semantic error ("unknown role", "must be a number") names its line
/// as a syntax error does.
public struct ConfigDocument: Sendable {
    public let root: ConfigTable
    let lines: ConfigLineIndex

    public static func parse(_ text: String) throws(ConfigSyntaxError) -> ConfigDocument {
        // toml++ reads a C string: a NUL would silently end the document early.
        if let nul = text.utf8.firstIndex(of: 0) {
            let line = text.utf8[..<nul].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw ConfigSyntaxError(line: line, column: 1, message: "a NUL byte (not a text file?)")
        }
        if let bad = TOMLPrecheck.firstUnsafeSpot(text) { throw bad }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigSyntaxError(line: error.source.begin.line, column: error.source.begin.column,
                                    message: error.description)
        } catch {
            throw ConfigSyntaxError(line: 1, column: 1, message: "\(error)")
        }
        return ConfigDocument(root: Self.convert(table), lines: ConfigLineIndex(text))
    }

    /// The line of `path` ("session[1].task[0].url"), or of its nearest enclosing table or key
    /// that has a line, or 1.
    public func line(of path: String) -> Int {
        lines.line(of: path)
    }

    static func convert(_ table: TOMLTable) -> ConfigTable {
        var entries: [String: ConfigValue] = [:]
        for key in table.keys {
            if let value = table[key] { entries[key] = convert(value) }
        }
        return ConfigTable(entries)
    }

    static func convert(_ value: TOMLValueConvertible) -> ConfigValue {
        switch value.type {
        case .string: return .string(value.string ?? "")
        case .int: return .integer(value.int ?? 0)
        case .double: return .float(value.double ?? 0)
        case .bool: return .bool(value.bool ?? false)
        case .table: return .table(value.table.map(convert) ?? ConfigTable())
        case .array: return .array(value.array.map { $0.map(convert) } ?? [])
        case .date, .time, .dateTime: return .dateTime(value.debugDescription)
        }
    }
}

/// Where each table header and key of a TOML text is, by path: `session[0]` for the first
/// `[[session]]`, `session[0].task[2].url` for a key in its third `[[session.task]]`. This only
/// locates lines for messages; toml++ has already parsed and checked the document. Keys inside
/// inline tables and multi-line values fall back to the line of the key that holds them.
struct ConfigLineIndex: Sendable {
    private var lineOfPath: [String: Int] = [:]

    init(_ text: String) {
        var current = ""
        var latestIndex: [String: Int] = [:]
        var inMultiline = false
        // Lines as toml++ counts them: by LF bytes (a CRLF is one Character, not "\n").
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        for (offset, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            let quotes = raw.components(separatedBy: "\"\"\"").count - 1 + raw.components(separatedBy: "'''").count - 1
            defer { if quotes % 2 == 1 { inMultiline.toggle() } }
            if inMultiline || line.isEmpty || line.hasPrefix("#") { continue }
            if let header = Self.header(line) {
                current = Self.resolve(header.names, isArray: header.isArray, latestIndex: &latestIndex)
                if lineOfPath[current] == nil { lineOfPath[current] = offset + 1 }
            } else if let key = Self.key(line) {
                let path = current.isEmpty ? key : current + "." + key
                if lineOfPath[path] == nil { lineOfPath[path] = offset + 1 }
            }
        }
    }

    func line(of path: String) -> Int {
        var path = Substring(path)
        while !path.isEmpty {
            if let line = lineOfPath[String(path)] { return line }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            path = path[..<cut]
        }
        return 1
    }

    /// `[a.b]` or `[[a.b]]` (bare or quoted names, no commas), else nil.
    static func header(_ line: String) -> (names: [String], isArray: Bool)? {
        let code = line.split(separator: "#", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let isArray = code.hasPrefix("[[") && code.hasSuffix("]]")
        guard isArray || (code.hasPrefix("[") && code.hasSuffix("]")) else { return nil }
        let inner = code.dropFirst(isArray ? 2 : 1).dropLast(isArray ? 2 : 1)
        guard !inner.contains(","), !inner.isEmpty else { return nil }
        let names = inner.split(separator: ".").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) }
        return (names, isArray)
    }

    /// The key of a `key = value` line (dotted keys joined with dots), else nil.
    static func key(_ line: String) -> String? {
        guard let eq = line.firstIndex(of: "="), let first = line.first, first != "[", first != "{" else { return nil }
        let parts = line[..<eq].split(separator: ".").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) }
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        return parts.joined(separator: ".")
    }

    /// The path a header opens: arrays of tables along the way resolve to their latest element.
    static func resolve(_ names: [String], isArray: Bool, latestIndex: inout [String: Int]) -> String {
        var resolved = ""
        for (i, name) in names.enumerated() {
            let path = resolved.isEmpty ? name : resolved + "." + name
            if isArray && i == names.count - 1 {
                let next = latestIndex[path].map { $0 + 1 } ?? 0
                latestIndex[path] = next
                resolved = path + "[\(next)]"
            } else if let index = latestIndex[path] {
                resolved = path + "[\(index)]"
            } else {
                resolved = path
            }
        }
        return resolved
    }
}
