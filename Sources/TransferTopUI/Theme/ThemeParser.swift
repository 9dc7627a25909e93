import Foundation
import TransferModel

/// A theme file error that teaches the format: file, line, what was wrong, what is accepted.
public struct ThemeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public static let format = "expected TOML `role = \"colour [on colour] [bold|dim|italic|underline|reverse]\"` "
        + "or `role = { fg = \"colour\", bg = \"colour\", bold = true }`, "
        + "where colour is #rrggbb, 0-255, a name (black red green yellow blue magenta cyan white, "
        + "bright-black … bright-white) or default"

    public var description: String { "\(file):\(line): \(message); \(Self.format)" }
}

/// Parses theme files (TOML 1.0, docs/themes.md): one key per role, its value a style string
/// `"fg [on bg] [attributes]"`, a 256-colour index, or an inline table `{ fg, bg, bold, ... }`.
public enum ThemeParser {
    /// Parses `text`; roles it leaves out come from `base` (the built-in default unless nil).
    public static func parse(_ text: String, file: String, base: Theme? = Theme.builtInDefault) throws(ThemeError) -> Theme {
        let document: ConfigDocument
        do { document = try ConfigDocument.parse(text) } catch {
            throw ThemeError(file: file, line: error.line, message: "not valid TOML: \(error.message)")
        }
        var styles = base?.styles ?? [:]
        for key in document.root.keys {
            let fail = { (message: String) in ThemeError(file: file, line: document.line(of: key), message: message) }
            guard let role = StyleRole(rawValue: key) else { throw fail(unknownRole(key)) }
            styles[role] = try style(document.root[key]!, key: key, fail: fail)
        }
        return Theme(name: themeName(file), styles: styles)
    }

    static func style(_ value: ConfigValue, key: String, fail: (String) -> ThemeError) throws(ThemeError) -> ThemeStyle {
        switch value {
        case .string(let text):
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail("no colour given for `\(key)`") }
            return try parseStyle(text, fail: fail)
        case .integer(let index):
            return ThemeStyle(try colour(String(index), after: key, fail: fail))
        case .table(let table):
            return try tableStyle(table, key: key, fail: fail)
        default:
            throw fail("`\(key)` must be a string, a colour index or an inline table, got \(value.typeName)")
        }
    }

    /// `{ fg = "#fff", bg = "blue", bold = true }`.
    static func tableStyle(_ table: ConfigTable, key: String, fail: (String) -> ThemeError) throws(ThemeError) -> ThemeStyle {
        var style = ThemeStyle()
        for field in table.keys {
            let value = table[field]!
            switch field {
            case "fg", "bg":
                let text: String
                switch value {
                case .string(let s): text = s
                case .integer(let i): text = String(i)
                default: throw fail("`\(key).\(field)` must be a colour, got \(value.typeName)")
                }
                let c = try colour(text, after: field, fail: fail)
                if field == "fg" { style.foreground = c } else { style.background = c }
            default:
                guard let attribute = TextAttribute(rawValue: field) else {
                    let names = ["fg", "bg"] + TextAttribute.allCases.map(\.rawValue)
                    throw fail("unknown style field `\(SafeQuote.quote(field, limit: 40))` in `\(key)` (fields: \(names.joined(separator: ", ")))")
                }
                guard case .bool(let on) = value else { throw fail("`\(key).\(field)` must be true or false, got \(value.typeName)") }
                if on { style.attributes.insert(attribute) }
            }
        }
        return style
    }

    /// `fg [on bg] [attributes]`; `fg X` and `bg X` (comma separated or not) are accepted too.
    static func parseStyle(_ value: String, fail: (String) -> ThemeError) throws(ThemeError) -> ThemeStyle {
        var style = ThemeStyle()
        var sawForeground = false
        var tokens = value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)[...]
        while let token = tokens.popFirst() {
            if let attribute = TextAttribute(rawValue: token.lowercased()) {
                style.attributes.insert(attribute)
            } else if ["on", "bg"].contains(token.lowercased()) {
                style.background = try colour(tokens.popFirst(), after: token, fail: fail)
            } else if token.lowercased() == "fg" {
                style.foreground = try colour(tokens.popFirst(), after: token, fail: fail)
                sawForeground = true
            } else if !sawForeground, let c = ThemeColor(parsing: token) {
                style.foreground = c
                sawForeground = true
            } else {
                throw fail("bad colour or attribute `\(SafeQuote.quote(token, limit: 40))`")
            }
        }
        return style
    }

    static func colour(_ token: String?, after keyword: String, fail: (String) -> ThemeError) throws(ThemeError) -> ThemeColor {
        guard let token else { throw fail("`\(keyword)` must be followed by a colour") }
        guard let c = ThemeColor(parsing: token) else { throw fail("bad colour `\(SafeQuote.quote(token, limit: 40))`") }
        return c
    }

    static func unknownRole(_ key: String) -> String {
        let near = StyleRole.allCases.map(\.rawValue).min { editDistance($0, key) < editDistance($1, key) }
        let hint = near.flatMap { editDistance($0, key) <= 3 ? " (did you mean `\($0)`?)" : nil } ?? ""
        return "unknown role `\(SafeQuote.quote(key, limit: 40))`\(hint)"
    }

    /// `themes/light.toml` → `light` (the legacy `.theme` suffix too).
    static func themeName(_ file: String) -> String {
        let last = file.split(separator: "/").last.map(String.init) ?? file
        for suffix in [".toml", ".theme"] where last.hasSuffix(suffix) { return String(last.dropLast(suffix.count)) }
        return last
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var row = Array(0...b.count)
        for i in 1...Swift.max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let old = row[j]
                row[j] = Swift.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = old
            }
        }
        return row[b.count]
    }
}
