import Foundation

/// Why a directory could not be created, as one line a user can act on (which path is in the
/// way and why), never an NSError's description: Foundation's says only "The operation could
/// not be completed" with a domain and a code.
public enum DirectoryProblem {
    /// `error` is what `FileManager.createDirectory` threw for `path`.
    public static func reason(creating path: String, _ error: any Error) -> String {
        if let blocked = ancestorInTheWay(path) { return blocked }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let posix = underlying, posix.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(posix.code))) }
        return "\((error as NSError).localizedFailureReason ?? String(cString: strerror(errno)))"
    }

    /// `code` is the `errno` `PrivateDirectory.create` returned for `path`.
    public static func reason(creating path: String, code: Int32) -> String {
        ancestorInTheWay(path) ?? String(cString: strerror(code))
    }

    /// The nearest existing ancestor of `path`, named when it is what stops the creation: a
    /// file where a directory should be, or a directory this user cannot write.
    private static func ancestorInTheWay(_ path: String) -> String? {
        var ancestor = (path as NSString).standardizingPath
        while !ancestor.isEmpty, ancestor != "/" {
            var st = stat()
            if lstat(ancestor, &st) == 0 || stat(ancestor, &st) == 0 {
                if (st.st_mode & S_IFMT) != S_IFDIR && ancestor != path { return "'\(ancestor)' is not a directory" }
                if ancestor != path, access(ancestor, W_OK | X_OK) != 0 { return "'\(ancestor)' is not writable" }
                return nil
            }
            ancestor = (ancestor as NSString).deletingLastPathComponent
        }
        return nil
    }
}
