import Foundation
import Testing
@testable import TransferModel

@Suite struct AbsolutePathTests {
    @Test func relativePathsGoUnderTheWorkingDirectory() {
        #expect(AbsolutePath.of("out", in: "/home/a") == "/home/a/out")
        #expect(AbsolutePath.of("out/", in: "/home/a/") == "/home/a/out")
        #expect(AbsolutePath.of("/srv/x", in: "/home/a") == "/srv/x")
        #expect(AbsolutePath.of("./x/./y", in: "/h") == "/h/x/y")
        #expect(AbsolutePath.of("//a///b//", in: "/") == "/a/b")
        #expect(AbsolutePath.of(".", in: "/") == "/")
        #expect(AbsolutePath.of("...", in: "/h") == "/h/...")
    }

    /// As `standardizedFileURL`, `..` is taken by text: it does not go through a symbolic link.
    @Test func dotDotIsTakenByTextAsFoundationTakesIt() throws {
        let base = FileManager.default.temporaryDirectory.path + "/abspath-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: base + "/real/inner", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: base + "/real/inner")
        #expect(AbsolutePath.of("link/../x", in: base) == base + "/x")
        #expect(AbsolutePath.of("link/../x", in: base) == AbsolutePath.foundation("link/../x", in: base))
        #expect(AbsolutePath.of("../x", in: "/h/a") == "/h/x")
        #expect(AbsolutePath.of("a/../../..", in: "/h") == "/")
    }

    @Test func aTildeIsTheHomeDirectory() {
        #expect(AbsolutePath.of("~/x", in: "/h") == AbsolutePath.foundation("~/x", in: "/h"))
        #expect(!AbsolutePath.of("~/x", in: "/h").hasPrefix("/h/"))
    }

    /// A deleted working directory reads as "": the path stays relative (creating it then
    /// fails), never lands under `/`.
    @Test func anUnknownWorkingDirectoryDoesNotMeanTheRoot() {
        #expect(AbsolutePath.of("out", in: "") != "/out")
        #expect(AbsolutePath.of("out", in: "") == AbsolutePath.foundation("out", in: ""))
    }

    /// The function stands in for Foundation's `standardizedFileURL.path`: the same answers.
    @Test func agreesWithFoundationsStandardizedFileURL() {
        let cwds = ["/", "/home/a", "/home/a/", "/tmp/x y", "/h/ü", "", "rel"]
        let paths = ["out", "./out", "../out", "a/b/../c", "/abs/./p/..", "..", ".", "a//b", "/", "x/", "with space/ü",
                     "../../../../x", "a/.../b", "%20", "a?b#c", "~", "~/d", "~root/d", "a~b", ""]
        for cwd in cwds {
            for path in paths {
                #expect(AbsolutePath.of(path, in: cwd) == AbsolutePath.foundation(path, in: cwd), "\(path) in \(cwd)")
            }
        }
    }
}
