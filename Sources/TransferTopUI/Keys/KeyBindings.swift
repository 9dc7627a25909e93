import Foundation
import TransferModel

/// Which key runs which action: the table's defaults, changed by a config file (SPEC T4).
public struct KeyBindings: Sendable, Equatable {
    public private(set) var actions: [Key: Action]

    public init(_ actions: [Key: Action]) {
        self.actions = actions
    }

    public static let defaults = KeyBindings(Dictionary(
        ActionTable.entries.flatMap { e in e.defaultKeys.map { ($0, e.action) } },
        uniquingKeysWith: { first, _ in first }))

    public func action(for key: Key) -> Action? { actions[key] }

    /// The keys bound to `action`, in a stable order (the table's order first).
    public func keys(for action: Action) -> [Key] {
        let defaults = ActionTable.info(action).defaultKeys.filter { actions[$0] == action }
        let extra = actions.filter { $0.value == action && !defaults.contains($0.key) }.map(\.key)
        return defaults + extra.sorted { $0.description < $1.description }
    }

    public mutating func bind(_ key: Key, to action: Action?) {
        actions[key] = action
    }
}

/// A key-binding file error naming the line and the accepted format.
public struct KeyBindingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public static let format = "expected `key = action-name` (or `key = none` to unbind), e.g. `x = cancel`"

    public var description: String { "\(file):\(line): \(message); \(Self.format)" }
}

/// Parses key-binding files: `# comments` and `key = action-name` lines over the defaults.
public enum KeyBindingParser {
    public static func parse(_ text: String, file: String, base: KeyBindings = .defaults) throws(KeyBindingError) -> KeyBindings {
        var bindings = base
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = stripComment(String(raw))
            if line.isEmpty { continue }
            let fail = { (m: String) in KeyBindingError(file: file, line: offset + 1, message: m) }
            let (key, action) = try parseLine(line, fail: fail)
            bindings.bind(key, to: action)
        }
        return bindings
    }

    /// `#` at the start of a line, or after a space, starts a comment (the `#` key is `hash`).
    static func stripComment(_ raw: String) -> String {
        let line = raw.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("#") { return "" }
        guard let r = line.range(of: " #") ?? line.range(of: "\t#") else { return line }
        return line[..<r.lowerBound].trimmingCharacters(in: .whitespaces)
    }

    /// `$XDG_CONFIG_HOME/transfertop/keys.conf`, or `~/.config/transfertop/keys.conf`.
    public static func configPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/transfertop/keys.conf" }
        return environment["HOME"].map { $0 + "/.config/transfertop/keys.conf" }
    }

    static func parseLine(_ line: String, fail: (String) -> KeyBindingError) throws(KeyBindingError) -> (Key, Action?) {
        // The key may itself be `=` only when spelt `equals`, so the first `=` splits.
        guard let eq = line.firstIndex(of: "=") else { throw fail("missing `=` in \"\(SafeQuote.quote(line, limit: 40))\"") }
        let keyName = line[..<eq].trimmingCharacters(in: .whitespaces)
        let actionName = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        guard let key = Key(name: keyName) else { throw fail("unknown key `\(SafeQuote.quote(keyName, limit: 40))`") }
        if actionName == "none" { return (key, nil) }
        guard let action = Action(rawValue: actionName) else {
            let names = Action.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail("unknown action `\(SafeQuote.quote(actionName, limit: 40))` (actions: \(names))")
        }
        return (key, action)
    }
}
