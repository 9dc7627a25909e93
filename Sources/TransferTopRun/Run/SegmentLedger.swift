import BackgroundWire
import Foundation
import TransferKit

/// The segments of a segmented upload the server has stored, kept on disk so a rerun of the
/// same command sends only the missing ones. One small JSON file per upload under
/// `$XDG_STATE_HOME/transfertop/segments/`, named by a hash of the redacted URL, the file's
/// path and the segment size. It holds the source's identity (`SourceIdentity`) and segment
/// numbers only (no URL, no credential), is rewritten atomically after each stored segment,
/// and is removed when the upload completes. A lock beside it keeps two runs from sending the
/// same upload at once.
package struct SegmentLedger {
    struct Record: Codable, Equatable {
        var version = 2
        var source: SourceIdentity
        var segmentSize: Int64
        var done: [Int]
    }

    let path: String
    let source: SourceIdentity
    let segmentSize: Int64
    private let lockFD: Int32
    var size: Int64 { source.size }

    enum Failure: Error, Equatable {
        case busy
        case unavailable(String)
    }

    /// Opens (and locks) the ledger of this upload. `nil` when there is no state directory
    /// (no `$XDG_STATE_HOME` nor `$HOME`): the upload then runs without one.
    static func open(url: URL, file: String, segmentSize: Int64) throws(Failure) -> SegmentLedger? {
        guard let state = StatePaths.stateDirectory(nil) else { return nil }
        guard let source = SourceIdentity(path: file) else {
            throw .unavailable("cannot read '\(SafeQuote.quote(file))': \(String(cString: strerror(errno)))")
        }
        var absolute = file
        if let resolved = realpath(file, nil) {
            absolute = String(cString: resolved)
            free(resolved)
        }
        // The name leaves the file's identity out: a changed file finds its old record and
        // says why it starts over, and no record of an older version is left behind.
        let key = [Redaction.redactURL(url.absoluteString), absolute, "\(segmentSize)"].joined(separator: "\n")
        let dir = state + "/segments"
        PrivateDirectory.create(dir)
        let path = dir + "/" + String(SHA256.hex(utf8: key).prefix(32)) + ".json"
        let fd = Foundation.open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .unavailable("cannot keep the record of stored segments in '\(dir)': \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw .busy
        }
        return SegmentLedger(path: path, source: source, segmentSize: segmentSize, lockFD: fd)
    }

    /// The segments an earlier run stored, and a note when a record was there but is not for
    /// this file as it is now (it is then ignored: every segment is sent again, nothing is
    /// mixed). `shownFile` names the file in the note.
    func load(shownFile: String) -> (done: Set<Int>, note: String?) {
        guard let data = FileManager.default.contents(atPath: path) else { return ([], nil) }
        guard let record = try? JSONDecoder().decode(Record.self, from: data), record.segmentSize == segmentSize else {
            return ([], "the record of stored segments was damaged; sending every segment")
        }
        if let change = record.source.change(to: source) {
            return ([], "'\(shownFile)' changed since the earlier run (\(change)); sending every segment")
        }
        // Only indexes of this upload's segments (a damaged or edited record may name others;
        // summing their lengths trapped).
        let count = SegmentLayout(totalSize: size, segmentSize: segmentSize).count
        return (Set(record.done.filter { $0 >= 0 && $0 < count }), nil)
    }

    /// Rewrites the record (a private temporary file, then rename). False when it could not
    /// be written: the upload goes on, a rerun may send more again.
    @discardableResult
    package func save(_ done: Set<Int>) -> Bool {
        guard let data = try? JSONEncoder().encode(Record(source: source, segmentSize: segmentSize, done: done.sorted())) else { return false }
        let temp = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temp, contents: data, attributes: [.posixPermissions: 0o600]) else { return false }
        if rename(temp, path) == 0 { return true }
        unlink(temp)
        return false
    }

    /// The upload completed, or its record must not be used again: the record and its lock go.
    package func remove() {
        unlink(path)
        unlink(path + ".lock")
        release()
    }

    package func release() { close(lockFD) }
}
