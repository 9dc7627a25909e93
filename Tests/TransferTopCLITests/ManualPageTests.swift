import Foundation
import Testing
@testable import TransferTopCLI

/// `docs/man/transfertop.1` is what `ManualPage` renders from the command's declarations
/// today: an option added or changed without regenerating the page fails here.
/// `RECORD=1 swift test --filter ManualPageTests` rewrites it.
@Suite struct ManualPageTests {
    static let file = Golden.packageRoot.appendingPathComponent("docs/man/transfertop.1")

    func page() throws -> String {
        ManualPage.render(try ToolInfo.decode(TransferTopCommand._dumpHelp()))
    }

    @Test func committedPageIsCurrent() throws {
        Golden.check(try page(), file: Self.file)
    }

    /// The binary's dump (what a packager would feed a generator) is the one rendered here.
    @Test func binaryDumpsTheSameDefinitions() async throws {
        let r = try await Run.binary(["--experimental-dump-help"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(ManualPage.render(try ToolInfo.decode(r.stdout)) == (try page()))
    }

    @Test func pageDocumentsEveryOptionAndCommand() throws {
        let text = try page()
        let info = try ToolInfo.decode(TransferTopCommand._dumpHelp())
        for a in info.command.arguments ?? [] {
            for n in a.names ?? [] { #expect(text.contains("\\fB" + ManualPage.text(n.spelled) + "\\fR"), "\(n.spelled)") }
        }
        for c in ["run (default)", "demo", "clean"] { #expect(text.contains(".SS " + c)) }
    }

    /// groff renders it without a warning (`-ww`: every warning; groff-base comes with
    /// `scripts/setup`).
    @Test func groffRendersThePageWithoutWarnings() async throws {
        let r = try await Run.spawn(["-man", "-Tutf8", "-ww", "-z", Self.file.path], executable: "/usr/bin/groff").wait()
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
    }
}
