import Foundation
import Testing
@testable import TransferTopCLI
@testable import TransferTopRun

@Suite struct OutputNamingTests {
    static let names: [(String, String)] = [
        ("http://h/file.bin", "file.bin"),
        ("http://h/a/b/c.tar.gz?x=1#f", "c.tar.gz"),
        ("http://h/", "index.html"),
        ("http://h", "index.html"),
        ("http://h/dir/", "dir"),
        ("http://h/..", "index.html"),
        ("http://h/a/%2E%2E", "index.html"),
        ("http://h/a/%2e%2e%2fetc%2fpasswd", "_etc_passwd"),
        ("http://h/x%2Fy", "x_y"),
        ("http://h/x%5Cy", "x_y"),
        ("http://h/.hidden", "hidden"),
        ("http://h/a%0Ab%07c", "a_b_c"),
        ("http://h/%20%20", "index.html"),
        ("http://h/caf%C3%A9.txt", "café.txt"),
    ]

    @Test(arguments: names) func sanitizes(_ url: String, _ expected: String) {
        #expect(OutputNaming.sanitizedName(for: URL(string: url)!) == expected)
    }

    @Test func collisions() {
        let taken: Set<String> = ["a.txt", "a (1).txt", "README", "x.tar.gz"]
        #expect(OutputNaming.uniqueName("a.txt") { taken.contains($0) } == "a (2).txt")
        #expect(OutputNaming.uniqueName("README") { taken.contains($0) } == "README (1)")
        #expect(OutputNaming.uniqueName("x.tar.gz") { taken.contains($0) } == "x.tar (1).gz")
        #expect(OutputNaming.uniqueName("new") { taken.contains($0) } == "new")
    }

    /// The run's hints start the search after the numbers it took: two lookups for the
    /// 101st file of one name, not 101.
    @Test func hintsSkipTheNumbersTheRunTook() throws {
        let taken = Set(["a.txt"] + (1...99).map { "a (\($0)).txt" })
        var lookups = 0
        let found = OutputNaming.uniqueName("a.txt", from: 100) { lookups += 1; return taken.contains($0) }
        #expect(found.name == "a (100).txt" && found.n == 100 && lookups == 2)

        let dir = NSTemporaryDirectory() + "tt-hints-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hints = NameHints()
        var placed: [String] = []
        for i in 0..<4 {
            let src = URL(fileURLWithPath: dir + "/.src\(i)")
            try Data("\(i)".utf8).write(to: src)
            placed.append((try OutputNaming.place(src, named: "f.bin", in: dir, hints: hints) as NSString).lastPathComponent)
        }
        #expect(placed == ["f.bin", "f (1).bin", "f (2).bin", "f (3).bin"])
        #expect(hints.start(dir + "/f.bin") == 4)
    }

    @Test func placeNeverOverwrites() throws {
        let dir = NSTemporaryDirectory() + "tt-place-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/f.bin"))
        let src = URL(fileURLWithPath: dir + "/.src")
        try Data("new".utf8).write(to: src)
        let placed = try OutputNaming.place(src, for: URL(string: "http://h/f.bin")!, in: dir)
        #expect(placed == dir + "/f (1).bin")
        #expect(try String(contentsOfFile: dir + "/f.bin", encoding: .utf8) == "old")
        #expect(try String(contentsOfFile: placed, encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: src.path))
    }

    /// A body held in memory is written once, straight under a free name: never over
    /// an existing file, with the mode a new file gets (umask), and nothing else left behind.
    @Test func storeWritesOnceUnderAFreeName() throws {
        let dir = NSTemporaryDirectory() + "tt-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/f.bin"))
        let hints = NameHints()
        let first = try #require(try OutputNaming.store(Data("one".utf8), named: "f.bin", in: dir, hints: hints))
        let second = try #require(try OutputNaming.store(Data("two".utf8), named: "f.bin", in: dir, hints: hints))
        #expect(first == dir + "/f (1).bin" && second == dir + "/f (2).bin")
        #expect(try String(contentsOfFile: dir + "/f.bin", encoding: .utf8) == "old")
        #expect(try String(contentsOfFile: first, encoding: .utf8) == "one")
        #expect(try String(contentsOfFile: second, encoding: .utf8) == "two")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["f (1).bin", "f (2).bin", "f.bin"])
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: first)[.posixPermissions] as? Int)
        #expect(mode == FileModes.newFileMode)
    }

    @Test func storeIntoAMissingDirectoryIsAClearError() {
        #expect(throws: CLIError.self) { try OutputNaming.store(Data("x".utf8), named: "f.bin", in: "/nonexistent-\(UUID().uuidString)") }
    }

    @Test func resumeKeysDifferByDirectory() {
        #expect(ResumeStore.key(url: "http://h/a", outputDirectory: "/x") != ResumeStore.key(url: "http://h/a", outputDirectory: "/y"))
        #expect(ResumeStore.key(url: "http://h/a", outputDirectory: "/x") == ResumeStore.key(url: "http://h/a", outputDirectory: "/x"))
    }

    /// The key is SHA-256 of `redacted URL + "\n" + directory` in UTF-8 (values from Python's
    /// hashlib): journals and resume files written by earlier builds keep being found.
    @Test func resumeKeysAreTheSHA256OfTheURLAndTheDirectory() {
        #expect(ResumeStore.key(url: "https://h/x", outputDirectory: "/o") == "674bc27f673827bae7b61b88ab5aff674f1b71f5df8388c1fccb46dcf28bc8d5")
        #expect(ResumeStore.key(url: "https://h/a%20b?q=1", outputDirectory: "/tmp/\u{E9} dir")
                == "66db3fd44e34da6c29e9ad955ff5f3c400749bbb0774b6068768adc7183b8878")
    }

    @Test func inputFileLines() {
        #expect(InputFile.urls(in: "# c\nhttp://a/\n\n  http://b/  \r\n#x\n") == ["http://a/", "http://b/"])
    }
}
