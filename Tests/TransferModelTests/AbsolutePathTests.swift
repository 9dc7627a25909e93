import Foundation
import Testing
@testable import TransferModel

@Suite struct AbsolutePathTests {
    @Test func relativePathsGoUnderTheWorkingDirectory() {
        #expect(AbsolutePath.of("out", in: "/home/a") == "/home/a/out")
        #expect(AbsolutePath.of("out/", in: "/home/a/") == "/home/a/out")
        #expect(AbsolutePath.of("/srv/x", in: "/home/a") == "/srv/x")
    }

    @Test func dotAndDotDotAreResolvedByText() {
        #expect(AbsolutePath.of("./x/./y", in: "/h") == "/h/x/y")
        #expect(AbsolutePath.of("../x", in: "/h/a") == "/h/x")
        #expect(AbsolutePath.of("a/../../..", in: "/h") == "/")
        #expect(AbsolutePath.of("//a///b//", in: "/") == "/a/b")
        #expect(AbsolutePath.of(".", in: "/") == "/")
        #expect(AbsolutePath.of("...", in: "/h") == "/h/...")
    }

    /// The function stands in for Foundation's `standardizedFileURL.path`: the same answers.
    @Test func agreesWithFoundationsStandardizedFileURL() {
        let cwds = ["/", "/home/a", "/home/a/", "/tmp/x y", "/h/ü"]
        let paths = ["out", "./out", "../out", "a/b/../c", "/abs/./p/..", "..", ".", "a//b", "/", "x/", "with space/ü",
                     "../../../../x", "a/.../b", "%20", "a?b#c"]
        for cwd in cwds {
            for path in paths {
                let foundation = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: cwd, isDirectory: true))
                    .standardizedFileURL.path
                #expect(AbsolutePath.of(path, in: cwd) == foundation, "\(path) in \(cwd)")
            }
        }
    }
}
