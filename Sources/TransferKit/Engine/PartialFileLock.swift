import BackgroundWire
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

extension PartialFileLock {
    /// Opens a partial file to continue it: one writer per partial file (a second process
    /// resuming the same download would interleave its bytes with ours), so the lock is taken
    /// and held until the file is placed. A lock that is gone by the time /proc/locks is read
    /// was a brief one (another run's stale-partial check holds a shared lock for an instant,
    /// longer on a loaded machine): try again rather than refuse for a holder that no longer
    /// exists. Locked, the file must still be the partial (a finished download renames it
    /// away before it lets go of the lock) and hold the bytes the resume data counts; bytes
    /// past them were never acknowledged and are cut. Returns the descriptor, positioned there.
    static func openForResume(_ path: String, bytesReceived: Int64) throws(TransferError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw ResumeDataError.partialFileMissing(path: path).transferError }
        var attempts = 0
        while !acquire(fd) {
            attempts += 1
            let holder = holder(of: fd)
            guard holder == nil && attempts < 4 else {
                close(fd)
                throw TransferError(.cannotOpenFile, "\(path) is already being downloaded by "
                    + (holder.map { "process \($0)" } ?? "another process") + "; nothing was changed")
            }
        }
        guard stillAt(path, fd, minimumSize: bytesReceived) else {
            close(fd)
            throw ResumeDataError.partialFileMissing(path: path).transferError
        }
        ftruncate(fd, off_t(bytesReceived))
        lseek(fd, off_t(bytesReceived), SEEK_SET)
        return fd
    }
}

/// The private directory for partial downloads, created 0700 on first use.
enum PartialFiles {
    static func directory(under base: String) -> String {
        let dir = base + "/partial"
        PrivateDirectory.create(dir)
        return dir
    }
}

/// Where a session keeps partial downloads: the state directory for default sessions (so
/// resume data survives a restart), a private temp directory for ephemeral ones. Computed and
/// created once per session, on first use, from any thread.
final class PartialDirectory: Sendable {
    private let ephemeral: Bool
    private let stateDirectory: String?
    private let made = Locked<String?>(nil)

    init(_ configuration: TransferConfiguration) {
        if case .ephemeral = configuration.kind { ephemeral = true } else { ephemeral = false }
        stateDirectory = configuration.stateDirectory
    }

    var path: String {
        made.withLock { made in
            if let made { return made }
            let temporary = NSTemporaryDirectory() + "transferkit-\(getuid())"
            let base = ephemeral ? temporary : StatePaths.stateDirectory(stateDirectory) ?? temporary
            let path = PartialFiles.directory(under: base)
            made = path
            return path
        }
    }
}
