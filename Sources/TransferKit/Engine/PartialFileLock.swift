import Foundation

/// Who holds a partial file's lock, and whether a locked descriptor is still the partial.
///
/// Every download holds `flock(LOCK_EX)` on its partial file from creation (or from resuming
/// it) until the finished file has been moved into place, so two processes can never write one
/// partial. The kernel drops the lock when a process dies, so a killed run's partial
/// is free for the next run.
enum PartialFileLock {
    /// Takes the exclusive lock, waiting at most half a second. The wait is not for another
    /// download (that one holds the lock for its whole life and we stop at once after this):
    /// it is for copies of a just-closed descriptor in a child that this or another process is
    /// spawning at that moment. Between fork and exec a child shares the parent's open files,
    /// and with them the lock, even of O_CLOEXEC descriptors (seen: a resumed task refused
    /// while the test process spawned a `transfertop` child).
    static func acquire(_ fd: Int32, within seconds: Double = 0.5) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else { return false }
            usleep(5_000)
        }
        return true
    }

    /// The process holding a flock on the file of `fd`, from /proc/locks (Linux), if any.
    /// Only read to name the other process in an error message.
    static func holder(of fd: Int32) -> Int32? {
        var st = stat()
        guard fstat(fd, &st) == 0, let text = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let inode = ":\(st.st_ino)"
        for line in text.split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF"
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[5].hasSuffix(inode),
                  let pid = Int32(fields[4]), pid != getpid() else { continue }
            return pid
        }
        return nil
    }

    /// Whether `path` still names the file open on `fd` and it holds at least `minimumSize`
    /// bytes (it was not placed or cut by the process that held it before us).
    static func stillAt(_ path: String, _ fd: Int32, minimumSize: Int64) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_ino == named.st_ino && open.st_dev == named.st_dev && Int64(open.st_size) >= minimumSize
    }
}
