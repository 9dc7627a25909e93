import Foundation

/// A path made absolute against a working directory, as
/// `URL(fileURLWithPath:relativeTo:).standardizedFileURL.path` makes it, with a cheap road for
/// the common case. On a one-URL run, Foundation's URL built a character set twice to say that
/// `out` under `/home/a` is `/home/a/out`: 3 % of the run's instructions.
///
/// The text alone decides when the working directory is absolute and the path has no leading
/// `~`: `.` and empty components are dropped, and `..` takes away the component before it
/// (never above `/`), without following symbolic links, as `standardizedFileURL` does. Anything
/// else goes to Foundation, which expands `~` and `~user` and keeps a path relative when the
/// working directory is unknown (deleted).
public enum AbsolutePath {
    /// `path` itself when it starts with `/`, else `path` under `cwd`; standardised.
    public static func of(_ path: String, in cwd: String) -> String {
        guard cwd.hasPrefix("/"), !path.hasPrefix("~") else { return foundation(path, in: cwd) }
        let joined = path.hasPrefix("/") ? path : cwd + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        // Appended by hand: `joined(separator:)` over substrings instantiated its generic
        // metadata at the first call, which cost as much as Foundation's path did.
        guard !parts.isEmpty else { return "/" }
        var out = ""
        out.reserveCapacity(joined.utf8.count)
        for part in parts {
            out.append("/")
            out.append(contentsOf: part)
        }
        return out
    }

    static func foundation(_ path: String, in cwd: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: cwd, isDirectory: true)).standardizedFileURL.path
    }
}
