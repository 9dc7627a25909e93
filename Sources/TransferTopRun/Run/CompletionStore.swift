import BackgroundWire
import Foundation
import TransferKit

/// What a run remembers about each file it placed, so a rerun of the same command
/// can tell "already complete" from "new version".
///
/// One append-only journal per output directory under `$XDG_STATE_HOME/transfertop/complete/`,
/// a JSON line per placed file: `{"key": …, "name", "size", "entityTag", "lastModified"}`. The
/// key is a hash of the redacted URL and the output directory; nothing else of the URL and no
/// credential is stored. A run's lines are written a batch at a time (`Journal`), where a
/// file per download cost two inodes in the state directory (inode allocation
/// dominated a run of thousands of small files). The journal is read once per run, its lines'
/// records parsed only for the keys looked up (`CompletionIndex`); a later line for a key
/// wins; a line that does not parse (a torn write, an edit) gives no record, so the worst a
/// damaged journal does is let a file be downloaded again.
///
/// A journal read with more than twice as many lines as keys (and more than
/// `compactionFloor`) is rewritten with one line per key, so the same list run every night
/// costs the same every night: its size and its read time follow the files it placed, not the
/// runs. Appenders hold a shared lock on `JOURNAL.lock` while their journal is open, and the
/// rewrite takes it exclusively without waiting, so it never drops a line a running run
/// appends: while one runs, the rewrite waits for a later read. A run that does not read the
/// journal (a list of 256 URLs or more into an empty output directory, or `--clobber`) deletes
/// it when the directory is empty (`discardRecordsOfEmptyDirectory`); `--clobber` also reads it,
/// and so compacts it, once it is larger than twice its lines would make it (`bound`).
public final class CompletionStore: @unchecked Sendable {
    // @unchecked: `indexes` is behind a lock; `directory` is immutable.
    public struct Record: Codable, Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var entityTag: String?
        public var lastModified: String?
    }

    struct Line: Codable {
        var key: String
        var record: Record

        /// The line as JSON, written by hand: what `JSONEncoder` gives (optional fields left
        /// out when nil), without its set-up per line (3 % of a small-file run).
        var json: String {
            var out: [UInt8] = []
            append(to: &out)
            return String(decoding: out, as: UTF8.self)
        }

        /// The line's JSON appended to `out` as bytes (no newline).
        func append(to out: inout [UInt8]) {
            out.append(contentsOf: #"{"key":"#.utf8)
            JSONValue.appendString(key, to: &out)
            out.append(contentsOf: #","record":{"name":"#.utf8)
            JSONValue.appendString(record.name, to: &out)
            out.append(contentsOf: #","size":"#.utf8)
            out.append(contentsOf: String(record.size).utf8)
            if let tag = record.entityTag {
                out.append(contentsOf: #","entityTag":"#.utf8)
                JSONValue.appendString(tag, to: &out)
            }
            if let date = record.lastModified {
                out.append(contentsOf: #","lastModified":"#.utf8)
                JSONValue.appendString(date, to: &out)
            }
            out.append(contentsOf: "}}".utf8)
        }
    }

    public let directory: String
    /// Journal path → its index, read on first use and dropped at the next append.
    let indexes = Locked<[String: CompletionIndex]>([:])

    public init(directory: String) { self.directory = directory }

    /// The store of this user's state directory (one instance per process, so the journal is
    /// read once).
    public static func standard() -> CompletionStore? {
        guard let state = StatePaths.stateDirectory(nil) else { return nil }
        return shared.withLock { stores in
            if let s = stores[state] { return s }
            let s = CompletionStore(directory: state + "/complete")
            stores[state] = s
            return s
        }
    }

    private static let shared = Locked<[String: CompletionStore]>([:])

    func journal(outputDirectory: String) -> String {
        directory + "/" + String(SHA256.hex(utf8: outputDirectory).prefix(32)) + ".jsonl"
    }

    /// Appends one record (opens and closes the journal: for single saves; a run appends
    /// through one `Journal`).
    public func save(_ record: Record, url: String, outputDirectory: String) {
        let journal = Journal(store: self, outputDirectory: outputDirectory)
        journal.append(record, url: url)
        journal.flush()
    }

    /// One output directory's journal, opened on the first write and kept open until the
    /// writer goes (a run holds one). Lines are gathered and written together by `flush`: a
    /// run flushes once per batch of completions its delegate queue handles, so a list of small
    /// files costs one `write` per batch, not one per file. What a crash loses is the last
    /// batch's lines: those files are downloaded again by a rerun, as a damaged journal's are.
    public final class Journal: @unchecked Sendable {
        // @unchecked: `file` is behind a lock; the rest is immutable.
        let store: CompletionStore
        let outputDirectory: String
        let path: String
        private struct File {
            var fd: Int32 = -1
            /// The shared lock on the journal's lock file, held while `fd` is open.
            var lockFD: Int32 = -1
            /// Lines appended and not written yet.
            var pending: [UInt8] = []
            /// Whether `flush` has said that lines were lost (it says so once).
            var toldLoss = false
        }
        private let file = Locked(File())

        public init(store: CompletionStore, outputDirectory: String) {
            self.store = store
            self.outputDirectory = outputDirectory
            path = store.journal(outputDirectory: outputDirectory)
        }

        deinit {
            flush()
            let f = file.withLock { $0 }
            if f.fd >= 0 { close(f.fd) }
            if f.lockFD >= 0 { close(f.lockFD) }  // after the journal: a rewrite may start now
        }

        /// Adds one record's line to the lines waiting for `flush`. True when none was waiting:
        /// the caller arranges the flush.
        @discardableResult
        public func append(_ record: Record, url: String) -> Bool {
            let line = Line(key: ResumeStore.key(url: url, outputDirectory: outputDirectory), record: record)
            return file.withLock { f in
                let first = f.pending.isEmpty
                line.append(to: &f.pending)
                f.pending.append(0x0A)
                return first
            }
        }

        /// Writes the lines waiting, in one `write`. The first time lines cannot be written
        /// it returns why, for the run to say (nil otherwise): nothing is lost but the records,
        /// and a rerun downloads those files again.
        @discardableResult
        public func flush() -> String? {
            let (written, failure) = file.withLock { f -> (Bool, Int32?) in
                guard !f.pending.isEmpty else { return (false, nil) }
                defer { f.pending.removeAll(keepingCapacity: true) }
                if f.fd < 0 { (f.fd, f.lockFD) = openJournal() }
                var failure: Int32? = errno
                if f.fd >= 0 {
                    // One write of whole lines: O_APPEND puts them at the end even with another
                    // run appending to the same journal.
                    let n = f.pending.withUnsafeBytes { Foundation.write(f.fd, $0.baseAddress, $0.count) }
                    if n == f.pending.count { return (true, nil) }
                    failure = n < 0 ? errno : EFBIG
                }
                if f.toldLoss { return (false, nil) }
                f.toldLoss = true
                return (false, failure)
            }
            if let failure {
                return "completed downloads cannot be recorded in '\(SafeQuote.quote(store.directory))': "
                    + "\(String(cString: strerror(failure))); a rerun downloads them again"
            }
            guard written else { return nil }
            // The index read for this run's look-ups is dropped, not extended: the look-ups
            // happen before the first download, and a run of 100,000 URLs kept every record
            // it appended (28 MiB of its 100 MiB peak heap). A later look-up in this
            // process reads the journal again, appended lines included.
            store.indexes.withLock { $0[path] = nil }
            return nil
        }

        /// The journal, open for appending, and its lock file's descriptor (-1 when either
        /// could not be opened).
        private func openJournal() -> (fd: Int32, lock: Int32) {
            var lock = CompletionStore.openLock(path)
            if lock < 0 {
                PrivateDirectory.create(store.directory)
                lock = CompletionStore.openLock(path)
            }
            // Shared, before the journal is opened: a rewrite (exclusive) cannot rename the
            // journal between this open and the last append.
            if lock >= 0 { while flock(lock, LOCK_SH) != 0 && errno == EINTR {} }
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            // No journal, no lock held: the next flush tries both again, and a rewrite by
            // another run is not kept waiting by a lock nothing uses.
            if fd < 0, lock >= 0 {
                close(lock)
                return (-1, -1)
            }
            return (fd, lock)
        }
    }

    /// Every record of `outputDirectory`'s journal by key (`ResumeStore.key`), the journal read
    /// on first use.
    func records(outputDirectory: String) -> CompletionIndex {
        let path = journal(outputDirectory: outputDirectory)
        return indexes.withLock { indexes -> CompletionIndex in
            if let index = indexes[path] { return index }
            let index = Self.read(path)
            if index.lines > max(Self.compactionFloor, 2 * index.count) { Self.compact(path, index) }
            indexes[path] = index
            return index
        }
    }

    /// Journals shorter than this are left as they are: a rewrite would cost more than reading.
    static let compactionFloor = 1024

    static func openLock(_ journal: String) -> Int32 {
        open(journal + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }

    /// Rewrites `path` with one line per key of `index` (a private temporary file, then rename),
    /// unless a run has the journal open for appending (it is then left for a later read).
    /// `index` is the caller's read; a journal grown since is read again under the lock, so
    /// lines appended meanwhile are kept.
    static func compact(_ path: String, _ given: CompletionIndex) {
        let lock = openLock(path)
        guard lock >= 0 else { return }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { return }
        var st = stat()
        let index = stat(path, &st) == 0 && Int(st.st_size) == given.text.count ? given : read(path)
        let temp = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temp, contents: Data(index.compacted()), attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temp, path) != 0 { unlink(temp) }
    }

    /// Deletes the journal of `outputDirectory` when that directory holds no file (or does not
    /// exist): every record then names a file that is gone. A list run into a directory its
    /// consumer empties never reads the journal (DECISIONS 210), so nothing else would bound
    /// it: each run appended a line per file for good. Left as it is while a run has the
    /// journal open for appending (the lock, as for a rewrite), or when a file appeared
    /// since the caller looked (listed again under the lock).
    public func discardRecordsOfEmptyDirectory(_ outputDirectory: String) {
        let path = journal(outputDirectory: outputDirectory)
        guard access(path, F_OK) == 0 else { return }
        let lock = Self.openLock(path)
        guard lock >= 0 else { return }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0,
              AlreadyComplete.DirectoryListing.isEmpty(outputDirectory) == true else { return }
        unlink(path)
        indexes.withLock { $0[path] = nil }
    }

    /// For a run that looks up no record (`--clobber`) but appends a line per file it places:
    /// the journal is deleted when the directory is empty, and read, so compacted (`records`),
    /// once it holds more than twice the lines of `urls` files (by its size: a line is about
    /// `lineSize` bytes), as a run that reads it would.
    public func bound(outputDirectory: String, urls: Int) {
        discardRecordsOfEmptyDirectory(outputDirectory)
        var st = stat()
        guard stat(journal(outputDirectory: outputDirectory), &st) == 0,
              Int(st.st_size) > max(Self.compactionFloor, 2 * urls) * Self.lineSize else { return }
        _ = records(outputDirectory: outputDirectory)
    }

    /// About a journal line's size (a 64-digit key, a name, a size and validators).
    static let lineSize = 200

    /// Whether the journal of `outputDirectory` holds any record.
    public func hasRecords(outputDirectory: String) -> Bool { !records(outputDirectory: outputDirectory).isEmpty }

    public func load(url: String, outputDirectory: String) -> Record? {
        records(outputDirectory: outputDirectory)[ResumeStore.key(url: url, outputDirectory: outputDirectory)]
    }

    /// The journal's index (empty when there is none).
    static func read(_ path: String) -> CompletionIndex {
        guard let data = FileManager.default.contents(atPath: path) else { return CompletionIndex() }
        return CompletionIndex(Array(data))
    }
}
