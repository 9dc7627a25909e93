import BackgroundWire
import Foundation

/// A state file only its owner reads (cookies, cached responses, netrc), replaced whole: the
/// bytes go to a fresh temporary beside it (mode 0600 before any byte is written, never
/// following a link), are synced, and the temporary is renamed over the file. A reader sees the
/// old file or the new one, never a part; a failure leaves the old one as it was.
enum PrivateFile {
    /// Whether `path` now holds `bytes`. Its directory is made (0700) when missing.
    static func replace(_ path: String, with bytes: some ContiguousBytes) -> Bool {
        let parent = (path as NSString).deletingLastPathComponent
        let dir = parent.isEmpty ? "." : parent
        PrivateDirectory.create(dir)
        // A name of its own per writer: two processes saving at once never share a temporary.
        let temp = dir + "/.\((path as NSString).lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return false }
        let written = FileDescriptorWrite.all(bytes, to: fd) == nil
        // fchmod: a umask such as 0277 would have left it unwritable to its owner.
        let ok = written && fchmod(fd, 0o600) == 0 && fsync(fd) == 0
        close(fd)
        if ok, rename(temp, path) == 0 { return true }
        unlink(temp)
        return false
    }
}
