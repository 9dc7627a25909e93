import Foundation

/// One daemon per user: an exclusive `flock` on `daemon.lock`, held for the daemon's life.
/// The kernel drops it when the process dies, kill -9 included, so a crashed daemon never
/// blocks the next one (a pid file alone would). The file holds the pid for messages.
public final class DaemonLock: @unchecked Sendable {
    // @unchecked: `fd` is set once in init and closed by the owner only.
    let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    public static func acquire(_ path: String) throws(DaemonError) -> DaemonLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DaemonError("cannot open '\(path)': \(String(cString: strerror(errno)))") }
        // A client's `holderPID` or `waitUntilGone` holds a shared lock for an instant: try for
        // up to a second before calling the lock a running daemon's.
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let e = errno
                close(fd)
                throw DaemonError("cannot lock '\(path)': \(String(cString: strerror(e)))")
            }
            tries += 1
            if tries == 100 { break }
            usleep(10_000)
        }
        guard tries < 100 else {
            let holder = holderPID(path).map { " (pid \($0))" } ?? ""
            close(fd)
            throw DaemonError("a transfertop daemon is already running\(holder)")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return DaemonLock(fd: fd)
    }

    /// The pid in the lock file, if a process holds the lock now.
    public static func holderPID(_ path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Free (we could take it): nobody holds it, whatever the file says.
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { flock(fd, LOCK_UN); return nil }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    deinit { close(fd) }
}
