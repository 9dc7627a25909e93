import Testing
@testable import TransferTopCLI
@testable import TransferTopRun

/// The command line as argument-parser reads it (`TransferTopCommand`): every option lands in
/// `Options`, and every mistake is one line of ours.
@Suite struct CommandLineTests {
    func parse(_ args: [String]) throws(UsageError) -> Command {
        try TransferTopCommand.command(from: args, columns: 80)
    }

    func run(_ args: [String]) throws -> Options {
        guard case .run(let o) = try parse(args) else { throw UsageError("not a run") }
        return o
    }

    @Test func urlsAndDefaults() throws {
        let o = try run(["http://a/x", "https://b/y"])
        #expect(o.urls == ["http://a/x", "https://b/y"])
        #expect(o.session == .default && o.maxConnectionsPerHost == 6 && o.requestTimeout == 60)
        #expect(o.resourceTimeout == 7 * 24 * 3600 && o.fps == 10 && o.theme == "default" && !o.noTUI)
    }

    @Test func everyOption() throws {
        let o = try run(["-i", "list.txt", "--input-file=more.txt", "-o", "out", "--session", "ephemeral",
                         "--max-connections-per-host", "2", "--request-timeout", "3.5", "--resource-timeout=90",
                         "-H", "A: b", "--header", "C: d", "--cacert", "ca.pem", "--upload", "f.bin",
                         "--csv", "m.csv", "--har", "r.har", "--theme", "light", "--no-tui", "--fps", "30", "http://h/",
                         "-A", "agent/1", "--location-trusted", "--force", "--clobber"])
        #expect(o.inputFiles == ["list.txt", "more.txt"])
        #expect(o.outputDirectory == "out" && o.session == .ephemeral && o.maxConnectionsPerHost == 2)
        #expect(o.requestTimeout == 3.5 && o.resourceTimeout == 90 && o.headers == ["A: b", "C: d"])
        #expect(o.caCertificate == "ca.pem" && o.upload == "f.bin" && o.csv == "m.csv" && o.har == "r.har")
        #expect(o.theme == "light" && o.noTUI && o.fps == 30 && o.urls == ["http://h/"])
        #expect(o.userAgent == "agent/1" && o.locationTrusted && o.force && o.existingFiles == .replace)
    }

    @Test func optionsMayFollowURLsAndRunMayBeNamed() throws {
        let o = try run(["http://a/", "-o", "out", "--no-tui"])
        #expect(o.urls == ["http://a/"] && o.outputDirectory == "out" && o.noTUI)
        #expect(try run(["run", "http://a/"]).urls == ["http://a/"])
        #expect(try run(["-o", "out", "run", "http://a/"]).outputDirectory == "out")
    }

    @Test func lastOfClobberAndNoClobberWins() throws {
        #expect(try run(["--clobber", "--no-clobber", "http://a/"]).existingFiles == .skip)
        #expect(try run(["--no-clobber", "--clobber", "http://a/"]).existingFiles == .replace)
        #expect(try run(["http://a/"]).existingFiles == .keepBoth)
    }

    @Test func valuesMayStartWithADash() throws {
        // As before: an option's value is the next argument, whatever it looks like.
        #expect(try run(["-H", "-X: y", "http://a/"]).headers == ["-X: y"])
        #expect(throws: UsageError("--fps must be a whole number from 1 to 120, not '-1'")) { try parse(["--fps", "-1", "http://a/"]) }
    }

    @Test func clean() throws {
        #expect(try parse(["clean"]) == .clean(directory: nil, delete: false))
        #expect(try parse(["clean", "dir", "--yes"]) == .clean(directory: "dir", delete: true))
        #expect(try parse(["clean", "-y", "dir"]) == .clean(directory: "dir", delete: true))
        #expect(throws: UsageError("'clean' takes no transfer options (usage: transfertop clean [DIR] [--yes])")) {
            try parse(["clean", "-o", "x"])
        }
        #expect(throws: UsageError("unexpected argument 'b'")) { try parse(["clean", "a", "b"]) }
    }

    @Test func versionLine() throws {
        guard case .print(let text) = try parse(["--version"]) else { Issue.record("not printed"); return }
        #expect(text == VersionInfo.versionLine)
        #expect(text.wholeMatch(of: /transfertop [A-Za-z0-9._+-]+ \(libcurl \d+\.\d+\.\d+\)/) != nil, "\(text)")
    }

    @Test func jobAloneIsEnough() throws {
        #expect(try run(["--job", "j.toml"]).job == "j.toml")
        #expect(try run(["-i", "-"]).inputFiles == ["-"])
    }

    @Test func uploadFromStandardInputIsLineMode() throws {
        // Standard input carries the body, so the monitor cannot read keys from it.
        #expect(try run(["-T", "-", "http://a/"]).noTUI)
        #expect(try run(["run", "--upload", "-", "http://a/"]).noTUI)
        #expect(try !run(["-T", "f", "http://a/"]).noTUI)
    }

    @Test func helpAndDemo() throws {
        let help = TransferTopCommand.helpMessage(columns: 80)
        #expect(try parse(["--help"]) == .print(help))
        #expect(try parse(["http://a/", "-h"]) == .print(help))
        guard case .demo(let o) = try parse(["demo", "--no-tui", "--fps", "5"]) else {
            Issue.record("not demo"); return
        }
        #expect(o.noTUI && o.fps == 5)
        // After `--`, "demo" is a URL (and not a valid one).
        #expect(throws: UsageError.self) { try parse(["--", "demo"]) }
    }

    static let errors: [([String], String)] = [
        ([], "no URLs given (pass URLs, --input-file FILE, --job FILE, or 'demo')"),
        (["--bogus"], "unknown option '--bogus'"),
        (["-x", "http://a/"], "unknown option '-x'"),
        (["http://a/", "-o"], "option '-o' needs a value"),
        (["--no-tui=1", "http://a/"], "option '--no-tui' takes no value"),
        (["--force=hunter2", "http://a/"], "option '--force' takes no value"),
        (["-uuser:hunter2", "http://a/"], "unknown option '-u'"),
        (["-uuser:secret", "http://a/"], "unknown option '-u'"),
        (["--password=hunter2", "http://a/"], "unknown option '--password'"),
        (["-A", "a\r\nX-Evil: 1", "http://a/"], "bad --user-agent: the value of header 'User-Agent' contains CR, LF or NUL"),
        (["demo", "--job", "j"], "'demo' cannot be combined with --job or --input-file"),
        (["-i", "-", "-i", "-"], "'-' (stdin) can be given to --input-file only once"),
        (["--session", "shared", "http://a/"], "--session must be 'default' or 'ephemeral', not 'shared'"),
        (["--max-connections-per-host", "0", "http://a/"], "--max-connections-per-host must be a whole number from 1 to 1000, not '0'"),
        (["--request-timeout", "-1", "http://a/"], "--request-timeout must be a number of seconds from 0.001 to 315360000 (ten years), not '-1'"),
        (["--resource-timeout", "soon", "http://a/"], "--resource-timeout must be a number of seconds from 0.001 to 315360000 (ten years), not 'soon'"),
        (["--fps", "1000", "http://a/"], "--fps must be a whole number from 1 to 120, not '1000'"),
        (["-H", "nocolon", "http://a/"], "bad header 'nocolon' (expected 'Name: value')"),
        (["not a url"], "not a URL: 'not a url'"),
        (["gopher://h/x"], "unsupported scheme 'gopher' in 'gopher://h/x' (use http, https, ftp, ftps, file or data)"),
        (["demo", "http://a/"], "'demo' takes no URLs"),
        (["--job", "j", "--upload", "f"], "--upload cannot be combined with --job (put uploads in the job file)"),
        (["-o", "", "http://a/"], "--output-dir needs a non-empty value"),
    ]

    @Test(arguments: errors) func usageErrors(_ args: [String], _ reason: String) {
        #expect(throws: UsageError(reason)) { try parse(args) }
    }

    @Test func usageMessageShape() {
        #expect(UsageError("x").message == "transfertop: x\nsee 'transfertop --help'")
    }

}
