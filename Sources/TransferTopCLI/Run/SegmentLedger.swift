import Foundation
import TransferKit

/// The segments of a segmented upload the server has stored, kept on disk so a rerun of the
/// same command sends only the missing ones (issue 14). One small JSON file per upload under
/// `$XDG_STATE_HOME/transfertop/segments/`, named by a hash of the redacted URL, the file's
/// path, identity, size and modification time, and the segment size: a changed file or another
/// segment size is another upload. It holds segment numbers only (no URL, no credential),
/// is rewritten atomically after each stored segment, and is removed when the upload completes.
/// A lock beside it keeps two runs from sending the same upload at once.
struct SegmentLedger {
    struct Record: Codable, Equatable {
        var version = 1
        var size: Int64
        var segmentSize: Int64
        var done: [Int]
    }

    let path: String
    let size: Int64
    let segmentSize: Int64
    private let lockFD: Int32

    enum Failure: Error, Equatable {
        case busy
        case unavailable(String)
    }

    /// Opens (and locks) the ledger of this upload. `nil` when there is no state directory
    /// (no `$XDG_STATE_HOME` nor `$HOME`): the upload then runs without one.
    static func open(url: URL, file: String, segmentSize: Int64) throws(Failure) -> SegmentLedger? {
        guard let state = StatePaths.stateDirectory(nil) else { return nil }
        var st = stat()
        guard stat(file, &st) == 0 else { throw .unavailable("cannot read '\(file)': \(String(cString: strerror(errno)))") }
        var absolute = file
        if let resolved = realpath(file, nil) {
            absolute = String(cString: resolved)
            free(resolved)
        }
        let identity = [Redaction.redactURL(url.absoluteString), absolute, "\(st.st_dev):\(st.st_ino)", "\(st.st_size)",
                        "\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)", "\(segmentSize)"].joined(separator: "\n")
        let dir = state + "/segments"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let path = dir + "/" + String(SHA256.hex(Data(identity.utf8)).prefix(32)) + ".json"
        let fd = Foundation.open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .unavailable("cannot keep the record of stored segments in '\(dir)': \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw .busy
        }
        return SegmentLedger(path: path, size: Int64(st.st_size), segmentSize: segmentSize, lockFD: fd)
    }

    /// The segments an earlier run stored, and a note when a record was there but unusable
    /// (it is then ignored: every segment is sent again, nothing is lost).
    func load() -> (done: Set<Int>, note: String?) {
        guard let data = FileManager.default.contents(atPath: path) else { return ([], nil) }
        guard let record = try? JSONDecoder().decode(Record.self, from: data),
              record.size == size, record.segmentSize == segmentSize else {
            return ([], "the record of stored segments was damaged; sending every segment")
        }
        // Decision 106: only indexes of this upload's segments (a damaged or edited record may
        // name others; summing their lengths trapped).
        let count = SegmentLayout(totalSize: size, segmentSize: segmentSize).count
        return (Set(record.done.filter { $0 >= 0 && $0 < count }), nil)
    }

    /// Rewrites the record (a private temporary file, then rename). False when it could not
    /// be written: the upload goes on, a rerun may send more again.
    @discardableResult
    func save(_ done: Set<Int>) -> Bool {
        guard let data = try? JSONEncoder().encode(Record(size: size, segmentSize: segmentSize, done: done.sorted())) else { return false }
        let temp = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temp, contents: data, attributes: [.posixPermissions: 0o600]) else { return false }
        if rename(temp, path) == 0 { return true }
        unlink(temp)
        return false
    }

    /// The upload completed: the record and its lock go.
    func remove() {
        unlink(path)
        unlink(path + ".lock")
        release()
    }

    func release() { close(lockFD) }
}
