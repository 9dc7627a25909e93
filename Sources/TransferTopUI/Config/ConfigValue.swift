import Foundation

/// A TOML value as plain Swift data. Only `ConfigDocument` knows TOMLKit; job files, themes and
/// key bindings read these values, which are Sendable and compare by value.
public indirect enum ConfigValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    /// Dates and times are kept as their TOML text: no file of ours has a date field, and an
    /// error message quotes what the user wrote.
    case dateTime(String)
    case array([ConfigValue])
    case table(ConfigTable)

    /// The TOML type name an error message uses ("must be a string, got an integer").
    public var typeName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a float"
        case .bool: return "a boolean"
        case .dateTime: return "a date"
        case .array: return "an array"
        case .table: return "a table"
        }
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Integers and floats both read as a number (`30` and `2.5` seconds).
    public var number: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .float(let d): return d
        default: return nil
        }
    }

    public var table: ConfigTable? {
        if case .table(let t) = self { return t }
        return nil
    }

    public var array: [ConfigValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}

/// A TOML table: keys to values, read in key order (toml++ keeps tables sorted by key).
public struct ConfigTable: Sendable, Equatable {
    public var entries: [String: ConfigValue]

    public init(_ entries: [String: ConfigValue] = [:]) {
        self.entries = entries
    }

    public subscript(key: String) -> ConfigValue? { entries[key] }

    /// Keys in sorted order, so errors and results do not depend on hashing.
    public var keys: [String] { entries.keys.sorted() }
}
