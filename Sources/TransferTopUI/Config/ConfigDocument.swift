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
        let (unsafe, lines) = TOMLPrecheck.scan(text)
        if let unsafe { throw unsafe }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigSyntaxError(line: error.source.begin.line, column: error.source.begin.column,
                                    message: error.description)
        } catch {
            throw ConfigSyntaxError(line: 1, column: 1, message: "\(error)")
        }
        return ConfigDocument(root: Self.convert(table), lines: lines)
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
/// locates lines for messages; toml++ parses and checks the document. `TOMLPrecheck`'s scanner,
/// which already follows strings, comments and brackets, hands it each top-level statement's
/// line; keys inside inline tables and multi-line values fall back to the key that holds them.
struct ConfigLineIndex: Sendable {
    private var lineOfPath: [String: Int] = [:]
    private var current = ""
    private var latestIndex: [String: Int] = [:]

    /// A top-level statement starts on line `number`, whose text is `line`.
    mutating func record(_ line: String, number: Int) {
        let line = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if let header = Self.header(line) {
            current = Self.resolve(header.names, isArray: header.isArray, latestIndex: &latestIndex)
            if lineOfPath[current] == nil { lineOfPath[current] = number }
        } else if let key = Self.key(line) {
            let path = current.isEmpty ? key : current + "." + key
            if lineOfPath[path] == nil { lineOfPath[path] = number }
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
