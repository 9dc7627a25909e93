import Foundation
import Testing
@testable import BackgroundWire

/// `PrivateDirectory.create` against what it replaces, FileManager's
/// `createDirectory(withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])`,
/// in a scratch directory of the test's own.
@Suite struct PrivateDirectoryTests {
    private func scratch() throws -> String {
        let base = FileManager.default.temporaryDirectory.path + "/privdir-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        return base
    }

    private func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    /// Exactly 0700, as FileManager makes them. (The umask is the process's, shared by the tests
    /// running beside this one, so it is left as it is: `chmod` is what makes the mode exact.)
    @Test func everyMissingDirectoryIsMade0700() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(PrivateDirectory.create(base + "/a/b/c") == 0)
        try FileManager.default.createDirectory(atPath: base + "/f/b/c", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        for sub in ["/a", "/a/b", "/a/b/c"] {
            #expect(mode(base + sub) == 0o700)
            #expect(mode(base + sub) == mode(base + "/f" + sub.dropFirst(2)))
        }
    }

    @Test func anExistingDirectoryIsLeftAsItIs() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/open", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        #expect(PrivateDirectory.create(base + "/open") == 0)
        #expect(mode(base + "/open") == 0o755)
        #expect(PrivateDirectory.create(base + "/open/") == 0)
        #expect(PrivateDirectory.create("/") == 0)
        // A symbolic link to a directory is a directory, as FileManager takes it.
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: base + "/open")
        #expect(PrivateDirectory.create(base + "/link") == 0)
        #expect(PrivateDirectory.create(base + "/link/new") == 0)
        #expect(mode(base + "/open/new") == 0o700)
    }

    @Test func aFileInTheWayIsAFailureThatNamesIt() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(FileManager.default.createFile(atPath: base + "/file", contents: Data("x".utf8)))
        #expect(PrivateDirectory.create(base + "/file") == ENOTDIR)
        let code = PrivateDirectory.create(base + "/file/below/deeper")
        #expect(code == ENOTDIR)
        #expect(DirectoryProblem.reason(creating: base + "/file/below/deeper", code: code).hasSuffix("/file' is not a directory"))
        #expect((try? FileManager.default.createDirectory(atPath: base + "/file/below", withIntermediateDirectories: true)) == nil)
        #expect(PrivateDirectory.create("") == ENOENT)
        #expect(!FileManager.default.fileExists(atPath: base + "/file/below"))
        // A link to nothing is in the way too: something exists there.
        try FileManager.default.createSymbolicLink(atPath: base + "/dangling", withDestinationPath: base + "/nowhere")
        #expect(PrivateDirectory.create(base + "/dangling") == EEXIST)
        #expect(!FileManager.default.fileExists(atPath: base + "/nowhere"))
    }

    @Test func missingParentsAreMadeWhateverTheSlashes() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(PrivateDirectory.create(base + "//p/q//r/") == 0)
        #expect(mode(base + "/p") == 0o700 && mode(base + "/p/q") == 0o700 && mode(base + "/p/q/r") == 0o700)
        #expect(PrivateDirectory.create(base + "/p/q/../s") == 0)
        #expect(mode(base + "/p/s") == 0o700)
    }
}
