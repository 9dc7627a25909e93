import Foundation

/// Where theme files are looked for, as a pure function of the environment and paths the
/// caller passes in: so the monitor finds its themes from any working directory.
public struct ThemeLocator: Sendable {
    public var environment: [String: String]
    /// The running executable's path (e.g. `/usr/local/bin/transfertop`).
    public var executablePath: String?
    public var currentDirectory: String?
    /// Injected so the search is testable without a file system.
    public var isDirectory: @Sendable (String) -> Bool

    public init(environment: [String: String], executablePath: String?, currentDirectory: String?,
                isDirectory: @escaping @Sendable (String) -> Bool = ThemeLocator.directoryExists) {
        self.environment = environment
        self.executablePath = executablePath
        self.currentDirectory = currentDirectory
        self.isDirectory = isDirectory
    }

    /// Theme directories in lookup order: XDG config, installed share dir, the repo's
    /// `themes/` above the executable, then above the current directory. Duplicates removed.
    public func searchDirectories() -> [String] {
        var dirs = [xdgDirectory(), installedDirectory()].compactMap { $0 }
        for start in [executablePath.map(Self.parent), currentDirectory].compactMap({ $0 }) {
            dirs += Self.ancestors(of: start).map { $0 + "/themes" }.filter(isDirectory).prefix(1)
        }
        var seen = Set<String>()
        return dirs.filter { seen.insert($0).inserted }
    }

    /// Candidate files for `nameOrPath`: a value with a `/` or ending in `.toml` (or the
    /// legacy `.theme`) is a path and is the only candidate; a name is `<dir>/<name>.toml`, then
    /// `<dir>/<name>.theme`, in every search directory.
    public func candidates(for nameOrPath: String) -> [String] {
        if nameOrPath.contains("/") || Self.isThemeFileName(nameOrPath) { return [nameOrPath] }
        return searchDirectories().flatMap { ["\($0)/\(nameOrPath).toml", "\($0)/\(nameOrPath).theme"] }
    }

    /// Theme files end in `.toml`; `.theme` is what they were called before they were TOML.
    public static let fileSuffixes = [".toml", ".theme"]

    public static func isThemeFileName(_ name: String) -> Bool {
        fileSuffixes.contains { name.hasSuffix($0) && name.count > $0.count }
    }

    /// `$XDG_CONFIG_HOME/transfertop/themes`, or `~/.config/transfertop/themes`.
    func xdgDirectory() -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/transfertop/themes" }
        return environment["HOME"].map { $0 + "/.config/transfertop/themes" }
    }

    /// `<prefix>/share/transfertop/themes` for an executable installed in `<prefix>/bin`.
    func installedDirectory() -> String? {
        guard let exe = executablePath else { return nil }
        return Self.parent(Self.parent(exe)) + "/share/transfertop/themes"
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` and every directory above it, nearest first.
    static func ancestors(of path: String) -> [String] {
        var out = [path]
        while let last = out.last, last != "/", last != "." { out.append(parent(last)) }
        return out.map { $0 == "/" ? "" : $0 }
    }

    @Sendable public static func directoryExists(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }
}
