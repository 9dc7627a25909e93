import Foundation

/// A directory only its owner may enter (state, journals, partial files, the daemon's
/// sockets), created with its missing parents.
///
/// What `FileManager.createDirectory(atPath:withIntermediateDirectories: true, attributes:
/// [.posixPermissions: 0o700])` does, on `mkdir(2)` and `chmod(2)`: each directory it creates
/// is 0700 whatever the umask, and one that is already there is left as it is. A file system
/// that refuses `chmod` keeps the mode `mkdir` gave, as Foundation's does. Foundation reads each
/// new directory's attributes back through a dynamic cast whose first use scans every
/// conformance record of the binary: 4 % of a one-URL run's instructions, for the completion
/// journal's directory (DECISIONS 203).
public enum PrivateDirectory {
    /// Creates `path` and its missing parents. 0 when `path` is a directory (made now or
    /// before, a symbolic link to one included), else the `errno` of the step that failed:
    /// `ENOTDIR` when `path` or a parent is something else.
    @discardableResult
    public static func create(_ path: String) -> Int32 {
        if path.isEmpty { return ENOENT }
        let first = makeOne(path)
        guard first == ENOENT else { return first }
        // A parent is missing: made first, then this one again.
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != path else { return first }
        let made = create(parent)
        return made != 0 ? made : makeOne(path)
    }

    /// One directory, 0700: 0 when `path` is a directory now (made by this call or by anyone
    /// before it), else the `errno`.
    private static func makeOne(_ path: String) -> Int32 {
        if mkdir(path, 0o700) == 0 {
            // Exact whatever the umask; a refusal is not a failure (vfat, some network mounts).
            _ = chmod(path, 0o700)
            return 0
        }
        let failure = errno
        guard failure == EEXIST else { return failure }
        var st = stat()
        guard stat(path, &st) == 0 else { return EEXIST }  // a dangling link, or one we cannot follow
        return (st.st_mode & S_IFMT) == S_IFDIR ? 0 : ENOTDIR
    }
}
