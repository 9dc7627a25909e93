import Foundation
import TransferModel

/// Which key runs which action: the table's defaults, changed by a config file.
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

    public static let format = "expected TOML `key = \"action-name\"` (or `key = \"none\"` to unbind), "
        + "e.g. `x = \"cancel\"`; quote keys that are not letters, digits or dashes: `\"?\" = \"help\"`"

    public var description: String { "\(file):\(line): \(message); \(Self.format)" }
}

/// Parses key-binding files (TOML 1.0, docs/keys.md): `key = "action-name"` over the defaults.
public enum KeyBindingParser {
    public static func parse(_ text: String, file: String, base: KeyBindings = .defaults) throws(KeyBindingError) -> KeyBindings {
        let document: ConfigDocument
        do { document = try ConfigDocument.parse(text) } catch {
            throw KeyBindingError(file: file, line: error.line, message: "not valid TOML: \(error.message)")
        }
        var bindings = base
        for keyName in document.root.keys {
            let fail = { (m: String) in KeyBindingError(file: file, line: document.line(of: keyName), message: m) }
            let (key, action) = try binding(keyName, document.root[keyName]!, fail: fail)
            bindings.bind(key, to: action)
        }
        return bindings
    }

    /// The key-bindings file: `$XDG_CONFIG_HOME/transfertop/keys.toml` (or under
    /// `~/.config`); `keys.conf`, its name before it was TOML, when only that one exists.
    public static func configPath(environment: [String: String],
                                  exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String? {
        let base: String
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], !home.isEmpty {
            base = home + "/.config"
        } else {
            return nil
        }
        let path = base + "/transfertop/keys.toml", legacy = base + "/transfertop/keys.conf"
        return !exists(path) && exists(legacy) ? legacy : path
    }

    static func binding(_ keyName: String, _ value: ConfigValue, fail: (String) -> KeyBindingError) throws(KeyBindingError) -> (Key, Action?) {
        guard let key = Key(name: keyName) else { throw fail("unknown key `\(SafeQuote.quote(keyName, limit: 40))`") }
        guard case .string(let actionName) = value else {
            throw fail("the action for `\(SafeQuote.quote(keyName, limit: 40))` must be a string, got \(value.typeName)")
        }
        if actionName == "none" { return (key, nil) }
        guard let action = Action(rawValue: actionName) else {
            let names = Action.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail("unknown action `\(SafeQuote.quote(actionName, limit: 40))` (actions: \(names))")
        }
        return (key, action)
    }
}
