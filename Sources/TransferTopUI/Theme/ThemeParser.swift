import Foundation
import TransferModel

/// A theme file error that teaches the format: file, line, what was wrong, what is accepted.
public struct ThemeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public static let format = "expected `role = colour [on colour] [bold|dim|italic|underline|reverse]`, "
        + "where colour is #rrggbb, 0-255, a name (black red green yellow blue magenta cyan white, "
        + "bright-black … bright-white) or default"

    public var description: String { "\(file):\(line): \(message); \(Self.format)" }
}

/// Parses `.theme` files: `# comments` and `role = colour [on colour] [attributes]` lines.
public enum ThemeParser {
    /// Parses `text`; roles it leaves out come from `base` (the built-in default unless nil).
    public static func parse(_ text: String, file: String, base: Theme? = Theme.builtInDefault) throws(ThemeError) -> Theme {
        var styles = base?.styles ?? [:]
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = stripComment(String(raw))
            if line.isEmpty { continue }
            let fail = { (message: String) in ThemeError(file: file, line: offset + 1, message: message) }
            let (role, style) = try parseLine(line, fail: fail)
            styles[role] = style
        }
        return Theme(name: themeName(file), styles: styles)
    }

    static func parseLine(_ line: String, fail: (String) -> ThemeError) throws(ThemeError) -> (StyleRole, ThemeStyle) {
        guard let eq = line.firstIndex(of: "=") else { throw fail("missing `=` in \"\(SafeQuote.quote(line, limit: 40))\"") }
        let key = line[..<eq].trimmingCharacters(in: .whitespaces)
        guard let role = StyleRole(rawValue: key) else { throw fail(unknownRole(key)) }
        let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { throw fail("no colour given for `\(key)`") }
        return (role, try parseStyle(value, fail: fail))
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
        guard let c = ThemeColor(parsing: token) else { throw fail("bad colour `\(token)`") }
        return c
    }

    static func unknownRole(_ key: String) -> String {
        let near = StyleRole.allCases.map(\.rawValue).min { editDistance($0, key) < editDistance($1, key) }
        let hint = near.flatMap { editDistance($0, key) <= 3 ? " (did you mean `\($0)`?)" : nil } ?? ""
        return "unknown role `\(SafeQuote.quote(key, limit: 40))`\(hint)"
    }

    /// A `#` that starts the line, or that follows a space and is followed by a space or the
    /// end, starts a comment; `#50fa7b` is a colour.
    static func stripComment(_ line: String) -> String {
        let chars = Array(line)
        for i in chars.indices where chars[i] == "#" {
            let starts = i == 0 || chars[i - 1] == " " || chars[i - 1] == "\t"
            let isComment = chars[..<i].allSatisfy(\.isWhitespace) || (starts && (i + 1 == chars.count || chars[i + 1].isWhitespace))
            if isComment { return String(chars[..<i]).trimmingCharacters(in: .whitespaces) }
        }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// `themes/light.theme` → `light`.
    static func themeName(_ file: String) -> String {
        let last = file.split(separator: "/").last.map(String.init) ?? file
        return last.hasSuffix(".theme") ? String(last.dropLast(6)) : last
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
