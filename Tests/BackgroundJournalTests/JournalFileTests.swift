import Foundation
import GRDB
import Testing
import TestSupport
@testable import BackgroundJournal

/// The journal's file: WAL, private modes, clear errors, and unreadable files moved aside,
/// never deleted (DECISIONS 115).
@Suite struct JournalFileTests {
    @Test func walModeAndPrivateModes() throws {
        let path = try journalPath("a/b")
        let journal = try openJournal(path)
        try journal.ensureSession("s")
        let journalMode = try otherConnection(path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(journalMode == "wal")
        // The file format's read/write version bytes are 2 in WAL mode (sqlite.org/fileformat.html).
        let header = try #require(bytes(path))
        #expect(header[18] == 2 && header[19] == 2)
        #expect(mode(path) == 0o600)
        #expect(mode(path + "-wal") == 0o600)
        let b = (path as NSString).deletingLastPathComponent
        #expect(mode(b) == 0o700)
        #expect(mode((b as NSString).deletingLastPathComponent) == 0o700)
    }

    @Test func anExistingFileIsMadePrivate() throws {
        let path = try journalPath()
        try write(Data(), to: path)
        chmod(path, 0o644)
        _ = try openJournal(path)
        #expect(mode(path) == 0o600)
    }

    @Test func aDirectoryThatCannotBeMadeIsAClearError() throws {
        // A regular file where a directory should be: refused as root too (root ignores modes).
        let dir = try privateDirectory("journal")
        try write(Data("x".utf8), to: "\(dir)/file")
        let path = "\(dir)/file/sub/journal.sqlite"
        let error = #expect(throws: JournalError.self) { try Journal.open(at: path) }
        #expect(error?.message == "journal \(path): cannot create its directory \(dir)/file: not a directory")
        #expect(bytes("\(dir)/file") == Data("x".utf8))
    }

    @Test func anUnwritableDirectoryIsAClearError() throws {
        let dir = try privateDirectory("journal")
        let path: String, expected: String
        if geteuid() == 0 {
            // Root writes into a 0500 directory; a path under a regular file fails for everyone.
            try write(Data(), to: "\(dir)/file")
            path = "\(dir)/file/journal.sqlite"
            expected = "journal \(path): cannot create its directory \(dir)/file: not a directory"
        } else {
            chmod(dir, 0o500)
            path = "\(dir)/journal.sqlite"
            expected = "journal \(path): cannot create or open the file: Permission denied"
        }
        defer { chmod(dir, 0o700) }
        let error = #expect(throws: JournalError.self) { try Journal.open(at: path) }
        #expect(error?.message == expected)
        #expect(error?.description == expected)
    }

    @Test func garbageIsMovedAside() throws {
        let path = try journalPath()
        let garbage = Data(String(repeating: "this is not a journal\n", count: 300).utf8)
        try write(garbage, to: path)
        try expectMovedAside(path, holding: garbage)
    }

    /// Cut inside the header, after the first page (the schema survives, the tables do not),
    /// and halfway.
    @Test(arguments: [50, 4096, -1])
    func aTruncatedJournalIsMovedAside(keeping length: Int) throws {
        let path = try journalPath()
        do {
            let journal = try openJournal(path)
            try journal.ensureSession("s")
            let urls = (1...3000).map { "https://example.com/a/rather/long/path/to/file\($0).bin" }
            _ = try journal.addSubmission(session: "s", options: json("{}"), urls: urls)
            try journal.close()
        }
        let whole = try #require(bytes(path))
        let cut = whole.prefix(length < 0 ? whole.count / 2 : length)
        try cut.write(to: URL(fileURLWithPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "closing checkpointed the WAL")
        try expectMovedAside(path, holding: cut)
    }

    @Test func aForeignDatabaseIsMovedAside() throws {
        let path = try journalPath()
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos VALUES (1, 'cat')")
        }
        try expectMovedAside(path, holding: try #require(bytes(path)), reason: "not a transfertop journal")
    }

    @Test func aFutureUserVersionIsMovedAside() throws {
        let path = try journalPath()
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE session2 (name TEXT); PRAGMA user_version = 99")
        }
        try expectMovedAside(path, holding: try #require(bytes(path)), reason: "schema version 99")
    }

    @Test func aFutureMigrationIsMovedAside() throws {
        let path = try journalPath()
        try openJournal(path).close()
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v2-from-the-future')")
        }
        try expectMovedAside(path, holding: try #require(bytes(path)), reason: "newer transfertop")
    }

    @Test func aStaleWALGoesWithItsJournal() throws {
        let path = try journalPath()
        try write(Data(repeating: 0xA5, count: 8192), to: path)
        try write(Data("wal".utf8), to: path + "-wal")
        let (_, notice) = try Journal.open(at: path)
        let text = try #require(notice)
        let moved = try #require(movedPath(in: text, of: path))
        #expect(bytes(moved + "-wal") == Data("wal".utf8))
    }

    @Test func aSecondCorruptionGetsItsOwnName() throws {
        let path = try journalPath()
        var moved: [String] = []
        for text in ["first garbage", "second garbage"] {
            let garbage = Data(String(repeating: text, count: 500).utf8)
            try write(garbage, to: path)
            let (journal, notice) = try Journal.open(at: path)
            try journal.close()
            let text = try #require(notice)
            moved.append(try #require(movedPath(in: text, of: path)))
            #expect(bytes(moved.last!) == garbage)
        }
        #expect(moved[0] != moved[1])
    }

    /// Opens `path`, which is not a journal: the old bytes must be at the `.corrupt-…` path the
    /// one-line notice names, and a working journal at `path`.
    private func expectMovedAside(_ path: String, holding old: Data, reason: String? = nil,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (journal, notice) = try Journal.open(at: path)
        let text = try #require(notice, sourceLocation: sourceLocation)
        #expect(!text.contains("\n"), sourceLocation: sourceLocation)
        if let reason { #expect(text.contains(reason), "\(text)", sourceLocation: sourceLocation) }
        let moved = try #require(movedPath(in: text, of: path), sourceLocation: sourceLocation)
        #expect(moved.range(of: #"\.corrupt-\d{8}-\d{6}$"#, options: .regularExpression) != nil, sourceLocation: sourceLocation)
        #expect(bytes(moved) == old, sourceLocation: sourceLocation)
        #expect(mode(path) == 0o600, sourceLocation: sourceLocation)
        try journal.ensureSession("fresh")
        let added = try journal.addSubmission(session: "fresh", options: json("{}"), urls: ["https://example.com/x"])
        #expect(added.tasks == [1], sourceLocation: sourceLocation)
        try journal.close()
        #expect(try openJournal(path).tasks(session: nil).count == 1, sourceLocation: sourceLocation)
    }
}
