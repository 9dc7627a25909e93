import Foundation
import Testing
@testable import TransferTopCLI

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

    @Test func resumeKeysDifferByDirectory() {
        #expect(ResumeStore.key(url: "http://h/a", outputDirectory: "/x") != ResumeStore.key(url: "http://h/a", outputDirectory: "/y"))
        #expect(ResumeStore.key(url: "http://h/a", outputDirectory: "/x") == ResumeStore.key(url: "http://h/a", outputDirectory: "/x"))
    }

    @Test func inputFileLines() {
        #expect(InputFile.urls(in: "# c\nhttp://a/\n\n  http://b/  \r\n#x\n") == ["http://a/", "http://b/"])
    }
}
