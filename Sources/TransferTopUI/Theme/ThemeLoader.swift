import Foundation

/// Loads a theme by name or path; never fails: a missing or broken theme falls back to the
/// built-in default with a message the caller shows (SPEC T5, "bad input: clear message").
public enum ThemeLoader {
    public struct Result: Sendable {
        public var theme: Theme
        /// Why the requested theme is not the one in use, when it is not.
        public var warning: String?
    }

    /// Tries each candidate in order; the first file that exists is parsed.
    public static func load(_ nameOrPath: String, locator: ThemeLocator,
                            readFile: (String) -> String? = readUTF8) -> Result {
        for path in locator.candidates(for: nameOrPath) {
            guard let text = readFile(path) else { continue }
            do {
                return Result(theme: try ThemeParser.parse(text, file: path), warning: nil)
            } catch {
                return Result(theme: .builtInDefault, warning: "\(error) — using the built-in default theme")
            }
        }
        if nameOrPath == "default" { return Result(theme: .builtInDefault, warning: nil) }
        let looked = locator.candidates(for: nameOrPath).joined(separator: ", ")
        return Result(theme: .builtInDefault,
                      warning: "theme `\(nameOrPath)` not found (looked in: \(looked)) — using the built-in default theme")
    }

    /// Names of the themes found in the search directories, for the `t` key's cycle;
    /// always starts with `default`.
    public static func availableNames(locator: ThemeLocator,
                                      list: (String) -> [String] = listDirectory) -> [String] {
        var names = ["default"]
        for dir in locator.searchDirectories() {
            for file in list(dir).sorted() where file.hasSuffix(".theme") {
                let name = String(file.dropLast(6))
                if !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    @Sendable public static func readUTF8(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    @Sendable public static func listDirectory(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}
