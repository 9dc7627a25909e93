import Foundation
import TransferModel

/// Loads a theme by name or path; never fails: a missing or broken theme falls back to the
/// built-in default with a message the caller shows ("bad input: clear message").
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
        // A file that exists but could not be read as UTF-8 text is not "not found".
        if let unreadable = locator.candidates(for: nameOrPath).first(where: { readBytes($0) != nil }) {
            return Result(theme: .builtInDefault,
                          warning: "theme file '\(SafeQuote.quote(unreadable))' is not a text file — using the built-in default theme")
        }
        let looked = locator.candidates(for: nameOrPath).joined(separator: ", ")
        return Result(theme: .builtInDefault,
                      warning: "theme `\(nameOrPath)` not found (looked in: \(looked)) — using the built-in default theme")
    }

    /// Why `nameOrPath` cannot be used, or nil when it loads cleanly: a missing theme, a file
    /// that is not text (a binary file used to be reported as "not found"), or a bad line.
    public static func problem(_ nameOrPath: String, locator: ThemeLocator,
                               readData: (String) -> [UInt8]? = readBytes) -> String? {
        // A path that names something other than a file says what it is (not "not found").
        if nameOrPath.contains("/"), let kind = notAFile(nameOrPath) {
            return "theme '\(SafeQuote.quote(nameOrPath))' is \(kind), not a theme file"
        }
        for path in locator.candidates(for: nameOrPath) {
            guard let bytes = readData(path) else { continue }
            let shown = SafeQuote.quote(path)
            guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
                return "theme file '\(shown)' is not a text file (\(ThemeError.format))"
            }
            do { _ = try ThemeParser.parse(text, file: path) } catch { return "\(error)" }
            return nil
        }
        if nameOrPath == "default" { return nil }
        return "theme '\(SafeQuote.quote(nameOrPath))' not found (looked in: \(locator.candidates(for: nameOrPath).joined(separator: ", ")))"
    }

    /// What `path` is when it exists and is not a regular file ("a directory", "a device"…).
    static func notAFile(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    @Sendable public static func readBytes(_ path: String) -> [UInt8]? {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else { return nil }
        return FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }

    /// Names of the themes found in the search directories, for the `t` key's cycle;
    /// always starts with `default`.
    public static func availableNames(locator: ThemeLocator,
                                      list: (String) -> [String] = listDirectory) -> [String] {
        var names = ["default"]
        for dir in locator.searchDirectories() {
            for file in list(dir).sorted() where ThemeLocator.isThemeFileName(file) {
                let name = ThemeParser.themeName(file)
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
