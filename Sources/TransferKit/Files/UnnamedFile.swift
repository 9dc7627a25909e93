import CCurl
import Foundation

/// A file that gets its name only once it is complete (Linux `O_TMPFILE`): until then no
/// directory entry exists, so a crash leaves nothing behind and the name never shows a partial
/// file. Naming it is one `linkat` that never replaces an existing file (a small download
/// written once, straight under its final name, instead of create + rename).
public struct UnnamedFile: ~Copyable {
    private let fd: Int32

    /// A new unnamed file in `directory` with `mode` (the umask applies, as for `open`). Nil
    /// with `errno` set when it cannot be made; `EOPNOTSUPP`, `EISDIR` or `EINVAL` mean the
    /// file system or kernel has no unnamed files (callers fall back to a named temporary).
    public init?(in directory: String, mode: mode_t = 0o666) {
        let fd = tk_open_unnamed(directory, UInt32(mode))
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Writes all of `data`; false with `errno` set (a full disk) otherwise.
    public func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { DownloadFiles.writeAll(fd, $0) }
    }

    /// Names the file `path`: 0, or -1 with `errno` (`EEXIST`: the name is taken; `ENOENT`
    /// for an existing directory means `/proc` is not mounted).
    public func link(as path: String) -> Int32 { tk_link_unnamed(fd, path) }
}
