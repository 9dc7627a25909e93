import CCurl
import Foundation

/// Moving a finished download into place without ever replacing a file.
public enum FileRename {
    /// `rename(from, to)` that fails with `EEXIST` instead of replacing `to`: one directory
    /// operation where `link` + `unlink` takes two. Returns 0, or -1 with `errno` set; `EINVAL`
    /// or `ENOSYS` when the file system or kernel cannot do it (callers fall back to `link`).
    public static func withoutReplacing(_ from: String, _ to: String) -> Int32 {
        tk_rename_noreplace(from, to)
    }
}
