import Foundation
import Testing
@testable import TransferTopRun

/// The journal's index keeps a writer's line as its place and parses it when its key is
/// looked up; a later line for a key wins whatever its shape; compaction keeps each key's
/// last line.
@Suite struct CompletionIndexTests {
    static let a = String(repeating: "a", count: 64)
    static let b = String(repeating: "0123456789abcdef", count: 4)

    static func line(_ key: String, _ name: String, _ size: Int64, tag: String? = nil) -> String {
        CompletionStore.Line(key: key, record: .init(name: name, size: size, entityTag: tag, lastModified: nil)).json
    }

    static func index(_ lines: [String]) -> CompletionIndex {
        CompletionIndex(Array(lines.map { $0 + "\n" }.joined().utf8))
    }

    @Test func aWritersLineIsKeptAsItsPlaceAndParsedWhenLookedUp() throws {
        let index = Self.index([Self.line(Self.a, "x.bin", 7, tag: "\"e\""), Self.line(Self.b, "y.bin", 9)])
        #expect(index.lines == 2 && index.count == 2)
        guard case .line? = index.entries[Self.a] else {
            Issue.record("a writer's line is parsed only when looked up")
            return
        }
        #expect(index[Self.a] == .init(name: "x.bin", size: 7, entityTag: "\"e\"", lastModified: nil))
        #expect(index[Self.b]?.size == 9)
        #expect(index["c"] == nil)
    }

    /// Another shape (keys in another order, a key that is not a hash) is parsed as read; the
    /// last line for a key wins, whichever shape each has.
    @Test func theLastLineForAKeyWinsInEitherShape() {
        let reordered = #"{"record":{"size":3,"name":"r.bin"},"key":"\#(Self.a)"}"#
        #expect(Self.index([Self.line(Self.a, "x.bin", 7), reordered])[Self.a]?.size == 3)
        #expect(Self.index([reordered, Self.line(Self.a, "x.bin", 7)])[Self.a]?.size == 7)
        #expect(Self.index([Self.line("k1", "short.bin", 5)])["k1"]?.name == "short.bin")
    }

    /// Lines that start as the writer's but go on in another writer's shape (fields in
    /// another order, a field more, spaces, a surrogate pair) are read by JSONDecoder when
    /// looked up.
    @Test func anotherWritersRecordAfterTheKeyIsStillRead() {
        let whole = Self.line(Self.a, "x.bin", 7)
        for other in [#"{"key":"\#(Self.a)","record":{"size":9,"name":"y.bin"}}"#,
                      #"{"key":"\#(Self.a)","record":{"name":"y.bin","size":9,"sha256":"00"}}"#,
                      #"{"key":"\#(Self.a)","record":{"name":"y.bin", "size": 9}}"#,
                      #"{"key":"\#(Self.a)","record":{"name":"\ud83d\ude00","size":9}}"#] {
            let record = Self.index([whole, other])[Self.a]
            #expect(record?.size == 9, "\(other)")
        }
    }

    /// A torn line is no line, also when the next append is glued to it (it then ends like a
    /// whole line): the key's earlier record stands. A line that is not JSON at all gives no
    /// record, so the file is downloaded again.
    @Test func aTornLineIsSkippedAndADamagedOneGivesNoRecord() {
        let whole = Self.line(Self.a, "x.bin", 7)
        #expect(Self.index([whole, String(Self.line(Self.a, "x.bin", 8).dropLast(3))])[Self.a]?.size == 7)
        let glued = String(Self.line(Self.a, "x.bin", 8).prefix(90)) + Self.line(Self.b, "y.bin", 5)
        let index = Self.index([whole, glued])
        #expect(index[Self.a]?.size == 7)
        let damaged = Self.line(Self.a, "x.bin", 8).replacingOccurrences(of: #""size":8"#, with: #""size":8,,"#)
        #expect(Self.index([whole, damaged])[Self.a] == nil)
    }

    @Test func compactionKeepsEachKeysLastLine() {
        let reordered = #"{"record":{"size":3,"name":"r.bin"},"key":"\#(Self.b)"}"#
        let index = Self.index([Self.line(Self.a, "x.bin", 7), Self.line(Self.a, "x.bin", 8, tag: "\"2\""), reordered, "torn{"])
        #expect(index.lines == 4 && index.count == 2)
        let text = String(decoding: index.compacted(), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init).sorted()
        #expect(lines == [Self.line(Self.a, "x.bin", 8, tag: "\"2\""), Self.line(Self.b, "r.bin", 3)].sorted())
        let again = CompletionIndex(index.compacted())
        #expect(again[Self.a]?.entityTag == "\"2\"" && again[Self.b]?.name == "r.bin" && again.lines == 2)
    }

    /// An empty output directory's journal is let go, unless a file is in the directory or a
    /// run has the journal open for appending (its shared lock).
    @Test func anEmptyDirectorysJournalIsLetGoUnlessAFileOrARunIsThere() throws {
        let root = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = CompletionStore(directory: root + "/complete")
        let out = root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        store.save(.init(name: "x.bin", size: 7, entityTag: nil, lastModified: nil), url: "http://h/x.bin", outputDirectory: out)
        let journal = store.journal(outputDirectory: out)
        #expect(store.hasRecords(outputDirectory: out))

        // A file in the directory: its record may still be right.
        #expect(FileManager.default.createFile(atPath: out + "/x.bin", contents: Data("1234567".utf8)))
        store.discardRecordsOfEmptyDirectory(out)
        #expect(FileManager.default.fileExists(atPath: journal))
        try FileManager.default.removeItem(atPath: out + "/x.bin")

        // A run appending to the journal holds its lock shared: the journal stays.
        let appender = CompletionStore.openLock(journal)
        #expect(appender >= 0 && flock(appender, LOCK_SH) == 0)
        store.discardRecordsOfEmptyDirectory(out)
        #expect(FileManager.default.fileExists(atPath: journal))
        close(appender)

        store.discardRecordsOfEmptyDirectory(out)
        #expect(!FileManager.default.fileExists(atPath: journal))
        #expect(!store.hasRecords(outputDirectory: out))
        // A directory that does not exist holds no file either; one that cannot be listed
        // (here a file in its place) answers for nothing; no journal is no error.
        store.save(.init(name: "z.bin", size: 1, entityTag: nil, lastModified: nil), url: "http://h/z.bin", outputDirectory: root + "/none")
        store.discardRecordsOfEmptyDirectory(root + "/none")
        #expect(!FileManager.default.fileExists(atPath: store.journal(outputDirectory: root + "/none")))
        let notADirectory = store.journal(outputDirectory: out) + ".lock"
        store.save(.init(name: "w.bin", size: 1, entityTag: nil, lastModified: nil), url: "http://h/w.bin", outputDirectory: notADirectory)
        store.discardRecordsOfEmptyDirectory(notADirectory)
        #expect(FileManager.default.fileExists(atPath: store.journal(outputDirectory: notADirectory)))
        store.discardRecordsOfEmptyDirectory(root + "/none")
        store.save(.init(name: "y.bin", size: 1, entityTag: nil, lastModified: nil), url: "http://h/y.bin", outputDirectory: out)
        #expect(store.load(url: "http://h/y.bin", outputDirectory: out)?.name == "y.bin")
    }

    /// `--clobber` reads no record but appends a line per file: its journal is compacted once
    /// it holds more than twice a run's lines, and not read before.
    @Test func aClobberRunsJournalIsCompactedOnceItOnlyGrew() throws {
        let root = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let out = root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: out + "/x.bin", contents: Data("x".utf8)))
        let writer = CompletionStore(directory: root + "/complete")
        let journal = writer.journal(outputDirectory: out)
        func lines() throws -> Int { try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n").count }
        for size in 1...1000 {
            writer.save(.init(name: "x.bin", size: Int64(size), entityTag: nil, lastModified: nil), url: "http://h/x.bin", outputDirectory: out)
        }
        // 1,000 lines of about 110 bytes: under the size 1,024 lines of a usual record make.
        CompletionStore(directory: root + "/complete").bound(outputDirectory: out, urls: 1)
        #expect(try lines() == 1000)
        for size in 1001...5000 {
            writer.save(.init(name: "x.bin", size: Int64(size), entityTag: nil, lastModified: nil), url: "http://h/x.bin", outputDirectory: out)
        }
        let store = CompletionStore(directory: root + "/complete")
        store.bound(outputDirectory: out, urls: 1)
        #expect(try lines() == 1)
        #expect(store.load(url: "http://h/x.bin", outputDirectory: out)?.size == 5000)
    }
}
