import Foundation

/// A path that names a device, a FIFO or a socket as the file to write (`-c /dev/null`,
/// `--csv /dev/stdout`, a shell's `>(…)`): the bytes are written into it, as curl writes
/// there. A temporary file renamed over it would replace the node itself (run as root, the
/// system's /dev/null) and never reach the pipe's reader.
public enum StreamTarget {
    /// Whether something is at `path` (symbolic links followed) that is neither a regular
    /// file nor a directory.
    public static func isStream(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && isStream(st.st_mode)
    }

    static func isStream(_ mode: mode_t) -> Bool {
        let type = mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }

    /// Writes `bytes` into `path` when it is such a target: nil when it is not (the caller
    /// writes its usual way), else whether every byte was written (`errno` says why not).
    public static func write(_ bytes: [UInt8], to path: String) -> Bool? {
        guard isStream(path) else { return nil }
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // Replaced by a regular file since the look: not written into (it would not be
        // truncated); the caller's usual way replaces it whole.
        var st = stat()
        guard fstat(fd, &st) == 0, isStream(st.st_mode) else { return nil }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return true
    }
}
