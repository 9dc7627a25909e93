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
        return "/" + parts.joined(separator: "/")
    }
}
