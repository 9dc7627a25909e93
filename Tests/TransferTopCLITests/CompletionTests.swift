import Foundation
import Testing
@testable import TransferTopCLI

/// Shell completions come from argument-parser (`--generate-completion-script SHELL`). The
/// bash script is proven where it runs: sourced in a real bash, it registers `transfertop`
/// and completes our option names and values.
@Suite struct CompletionTests {
    func script(_ shell: String) async throws -> String {
        let r = try await Run.binary(["--generate-completion-script", shell])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        return r.stdout
    }

    /// Runs `body` in bash after sourcing the bash script; returns bash's stdout.
    func bash(_ body: String) async throws -> RunResult {
        let file = try Run.tempDirectory() + "/transfertop.bash"
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        try await script("bash").write(toFile: file, atomically: true, encoding: .utf8)
        return try await Run.spawn(["-c", "source '\(file)' && \(body)"], executable: "/bin/bash").wait()
    }

    @Test func bashScriptRegistersTheCommand() async throws {
        let r = try await bash("complete -p transfertop")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("-F _transfertop transfertop"), "\(r.stdout)")
    }

    /// What bash would offer after `transfertop WORDS`: the completion function run as
    /// readline runs it.
    func completions(_ words: [String]) async throws -> [String] {
        let line = words.joined(separator: " ")
        let r = try await bash("""
            COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); COMP_CWORD=\(words.count - 1)
            COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            _transfertop transfertop '\(words.last!)' '\(words[words.count - 2])'; printf '%s\\n' "${COMPREPLY[@]}"
            """)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesOptionsSubcommandsAndValues() async throws {
        #expect(try await completions(["transfertop", "--no-cl"]) == ["--no-clobber"])
        #expect(try await completions(["transfertop", "--no-c"]).sorted() == ["--no-clobber", "--no-content-disposition"])
        #expect(try await completions(["transfertop", "--user-a"]) == ["--user-agent"])
        #expect(try await completions(["transfertop", "de"]) == ["demo"])
        #expect(try await completions(["transfertop", "--session", ""]).sorted() == ["default", "ephemeral"])
        #expect(try await completions(["transfertop", "clean", "--y"]) == ["--yes"])
    }

    /// zsh and fish are not on the test machines: their scripts are checked for what each
    /// shell loads them by, and for every root option.
    @Test func zshAndFishScriptsNameEveryOption() async throws {
        let zsh = try await script("zsh"), fish = try await script("fish")
        #expect(zsh.hasPrefix("#compdef transfertop"))
        #expect(fish.contains("complete -c 'transfertop'") || fish.contains("complete -c transfertop"), "\(fish.prefix(400))")
        let info = try ToolInfo.decode(TransferTopCommand._dumpHelp())
        for a in info.command.arguments ?? [] {
            for n in a.names ?? [] where n.kind == "long" {
                #expect(zsh.contains("--" + n.name), "zsh: no --\(n.name)")
                #expect(fish.contains("-l '\(n.name)'") || fish.contains("-l \(n.name)"), "fish: no --\(n.name)")
            }
        }
    }
}
