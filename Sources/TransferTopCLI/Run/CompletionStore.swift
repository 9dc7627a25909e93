import Foundation
import TransferKit

/// What a run remembers about each file it placed (issue 9), so a rerun of the same command
/// can tell "already complete" from "new version".
///
/// One append-only journal per output directory under `$XDG_STATE_HOME/transfertop/complete/`,
/// a JSON line per placed file: `{"key": …, "name", "size", "entityTag", "lastModified"}`. The
/// key is a hash of the redacted URL and the output directory; nothing else of the URL and no
/// credential is stored. Appending a line costs one small write per finished download, where a
/// file per download cost two inodes in the state directory (issue 8: inode allocation was a
/// third of a 5,000-URL run). The journal is read once per run; a later line for a key wins; a
/// line that does not parse (a torn write, an edit) is skipped, so the worst a damaged journal
/// does is let a file be downloaded again.
public final class CompletionStore: @unchecked Sendable {
    // @unchecked: `indexes` is behind a lock; `directory` is immutable.
    public struct Record: Codable, Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var entityTag: String?
        public var lastModified: String?
    }

    private struct Line: Codable {
        var key: String
        var record: Record
    }

    public let directory: String
    /// Journal path → key → record, read on first use.
    private let indexes = Locked<[String: [String: Record]]>([:])

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
        directory + "/" + String(SHA256.hex(Data(outputDirectory.utf8)).prefix(32)) + ".jsonl"
    }

    public func save(_ record: Record, url: String, outputDirectory: String) {
        let key = ResumeStore.key(url: url, outputDirectory: outputDirectory)
        guard var data = try? JSONEncoder().encode(Line(key: key, record: record)) else { return }
        data.append(0x0A)
        let path = journal(outputDirectory: outputDirectory)
        var fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard fd >= 0 else { return }  // no record: a rerun downloads the file again, nothing is lost
        // One write of the whole line: O_APPEND puts it at the end even with another run
        // appending to the same journal.
        _ = data.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        indexes.withLock { if $0[path] != nil { $0[path]![key] = record } }
    }

    public func load(url: String, outputDirectory: String) -> Record? {
        let path = journal(outputDirectory: outputDirectory)
        let key = ResumeStore.key(url: url, outputDirectory: outputDirectory)
        return indexes.withLock { indexes -> Record? in
            if indexes[path] == nil { indexes[path] = Self.read(path) }
            return indexes[path]![key]
        }
    }

    static func read(_ path: String) -> [String: Record] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var index: [String: Record] = [:]
        let decoder = JSONDecoder()
        for line in data.split(separator: 0x0A) {
            guard let entry = try? decoder.decode(Line.self, from: Data(line)) else { continue }
            index[entry.key] = entry.record
        }
        return index
    }
}
