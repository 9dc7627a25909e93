import Foundation
import Testing
@testable import TransferTopCLI

/// The help argument-parser writes from our declarations, at a fixed width (COLUMNS=80), is
/// the golden text: a change to an option's name or help shows as a diff to review.
@Suite struct HelpGoldenTests {
    static let commands: [(args: [String], golden: String)] = [
        (["--help"], "help"),
        (["demo", "--help"], "help-demo"),
        (["clean", "--help"], "help-clean"),
        (["help", "run"], "help-run"),
    ]

    @Test func helpOfEveryCommand() throws {
        for c in Self.commands {
            guard case .print(let text) = try TransferTopCommand.command(from: c.args, columns: 80) else {
                Issue.record("\(c.args) did not print help"); continue
            }
            Golden.check(text, c.golden)
        }
    }

    /// The binary prints the same text (the golden one, checked above) on stdout and exits 0,
    /// for `-h` as for `--help`, and after a URL too.
    @Test func binaryPrintsHelp() async throws {
        let expected = TransferTopCommand.helpMessage(columns: 80) + "\n"
        for args in [["--help"], ["-h"], ["http://a/", "--help"]] {
            let r = try await Run.binary(args, environment: ["COLUMNS": "80"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            #expect(r.stdout == expected, "\(args)")
        }
    }

    /// Every option the root declares is listed in `--help` (nothing hidden by accident).
    @Test func everyOptionIsInTheHelp() throws {
        let info = try ToolInfo.decode(TransferTopCommand._dumpHelp())
        let help = TransferTopCommand.helpMessage(columns: 80)
        for a in info.command.arguments ?? [] where a.kind != .positional {
            for n in a.names ?? [] { #expect(help.contains(n.spelled), "\(n.spelled) not in --help") }
        }
    }
}
