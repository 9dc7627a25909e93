import Foundation

/// Removing a download's temporary file by name only while the name still means our file.
enum FileIdentity {
    /// Unlinks `path` if it is the file open as `fd` (same device and inode). After the delegate
    /// moved a finished download away, its hidden name is free, and another task of the run
    /// may already have created its own partial there (`.NAME.ttpart` for a list of URLs with
    /// one file name): unlinking by name alone would delete that task's download. Nobody else can put a file at a name that
    /// still holds ours (partials are created with O_EXCL), so check-then-unlink is safe.
    static func unlinkIfSame(_ path: String, as fd: Int32) {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, lstat(path, &named) == 0,
              open.st_dev == named.st_dev, open.st_ino == named.st_ino else { return }
        unlink(path)
    }
}
