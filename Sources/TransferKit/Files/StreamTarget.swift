import Foundation

/// A path that names a device or a pipe as the file to write (`-c /dev/null`, `--csv
/// /dev/stdout`, a FIFO such as a shell's `>(…)`): the bytes are written into it, as curl
/// writes there. A temporary file renamed over it would replace the node itself (run as root,
/// the system's /dev/null or /dev/stdout) and never reach the pipe's reader.
///
/// - A device, and a FIFO of the user's own, is written into. A FIFO of another user's (one
///   planted where a shared directory's file was named) is not: the usual way replaces it.
/// - A path under /dev or /proc is written into whatever it leads to (`/dev/stdout` redirected
///   to a file: the file is truncated and written, as curl's `fopen("w")` does).
/// - A FIFO that nobody reads is an error at once, not a run that never ends.
public enum StreamTarget {
    public enum Outcome: Equatable {
        /// Not such a target: the caller writes its usual way.
        case notStream
        case written
        case failed(String)
    }

    /// Whether `path` is such a target.
    public static func isStream(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && isStream(st, path: path)
    }

    static func isStream(_ st: stat, path: String) -> Bool {
        switch st.st_mode & S_IFMT {
        case S_IFCHR, S_IFBLK: return true
        case S_IFIFO: return st.st_uid == geteuid()
        case S_IFREG: return isSystemPath(path)
        default: return false
        }
    }

    /// /dev and /proc hold nodes and links to them, never a file of ours to replace.
    static func isSystemPath(_ path: String) -> Bool {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return absolute.hasPrefix("/dev/") || absolute.hasPrefix("/proc/")
    }

    public static func write(_ bytes: [UInt8], to path: String) -> Outcome {
        var before = stat()
        guard stat(path, &before) == 0, isStream(before, path: path) else { return .notStream }
        let regular = before.st_mode & S_IFMT == S_IFREG
        // Non-blocking to open: a FIFO without a reader fails with ENXIO instead of waiting.
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (regular ? O_TRUNC : 0))
        guard fd >= 0 else {
            return .failed(errno == ENXIO ? "nobody reads it" : String(cString: strerror(errno)))
        }
        defer { close(fd) }
        // What was opened is what was looked at (not a file put there since).
        var st = stat()
        guard fstat(fd, &st) == 0, isStream(st, path: path) else { return .notStream }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return .failed(String(cString: strerror(n < 0 ? errno : EIO))) }
            written += n
        }
        return .written
    }
}
