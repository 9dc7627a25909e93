import Foundation

/// The journal's file-system side: a private directory and file, and moving an unreadable
/// journal aside. POSIX calls rather than FileManager, for errno's plain reasons in messages.
enum JournalFiles {
    /// Creates the journal's directory (and missing parents) 0700. An existing directory is
    /// left as it is: the user chose it.
    static func makeDirectory(for path: String) throws(JournalError) {
        let directory = (path as NSString).deletingLastPathComponent
        if directory.isEmpty { return }
        do { try makeDirectories(directory) } catch {
            throw JournalError("journal \(path): cannot create its directory \(error.message)")
        }
    }

    private static func makeDirectories(_ directory: String) throws(JournalError) {
        var info = stat()
        if stat(directory, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return }
            throw JournalError("\(directory): not a directory")
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != directory { try makeDirectories(parent) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw JournalError("\(directory): \(reason())")
        }
    }

    /// Creates the file 0600 before SQLite does (SQLite would use 0644 less the umask), and
    /// narrows an existing one: the journal holds URLs, paths and resume data. SQLite gives the
    /// -wal and -shm files the main file's mode.
    static func createPrivateFile(_ path: String) throws(JournalError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw JournalError("journal \(path): cannot create or open the file: \(reason())") }
        defer { close(fd) }
        if fchmod(fd, 0o600) != 0 { throw JournalError("journal \(path): cannot make the file private: \(reason())") }
    }

    /// Renames the journal and its -wal and -shm to `<path>.corrupt-<UTC yyyyMMdd-HHmmss>`
    /// (plus `-2`, `-3`... when that name is taken) and returns the new name. Never deletes:
    /// the old bytes may be someone's only record of their transfers. The -wal goes too, or
    /// SQLite would replay its stale frames into the new journal.
    static func moveAside(_ path: String) throws(JournalError) -> String {
        let base = "\(path).corrupt-\(stamp(Date()))"
        var target = base
        var n = 1
        while exists(target) || exists(target + "-wal") || exists(target + "-shm") {
            n += 1
            target = "\(base)-\(n)"
        }
        for suffix in ["-wal", "-shm", ""] where exists(path + suffix) {
            if rename(path + suffix, target + suffix) != 0 {
                throw JournalError("journal \(path) is not readable and cannot be moved aside to \(target + suffix): \(reason())")
            }
        }
        return target
    }

    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: date)
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
