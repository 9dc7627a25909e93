/// A path made absolute against a working directory and normalised by its text alone: `.` and
/// empty components dropped, `..` taking away the component before it (never above `/`). What
/// `URL(fileURLWithPath:relativeTo:).standardizedFileURL.path` gives, without Foundation's URL
/// machinery: on a one-URL run that call built a character set twice and cost 3 % of the run's
/// instructions. Symbolic links are not followed, as with `standardizedFileURL`.
public enum AbsolutePath {
    /// `path` itself when it starts with `/`, else `path` under `cwd`; normalised.
    public static func of(_ path: String, in cwd: String) -> String {
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
}
