import PropertyBased
import Synchronization
import Testing
@testable import TransferTopCLI
@testable import TransferTopRun

/// `QuickRunLine` reads a plain run's command line without argument-parser. These hold it to
/// argument-parser's answers: the same spellings, and on any line it reads, the same command or
/// the same message.
@Suite struct QuickRunLineTests {
    typealias Outcome = Result<Command, UsageError>

    static func outcome(_ body: () throws(UsageError) -> Command) -> Outcome {
        do throws(UsageError) { return .success(try body()) } catch { return .failure(error) }
    }

    /// What argument-parser makes of the line, and what the quick reader makes of it (nil: left
    /// to argument-parser).
    static func both(_ arguments: [String]) -> (parser: Outcome, quick: Outcome)? {
        guard let (values, urls) = QuickRunLine.read(arguments) else { return nil }
        let parser = outcome { () throws(UsageError) in try TransferTopCommand.parsedCommand(from: arguments, columns: 80) }
        return (parser, outcome { () throws(UsageError) in try RunCommand.command(values, urls: urls) })
    }

    /// The quick reader reads `line`, to the same answer as argument-parser.
    static func expectReadAlike(_ line: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let read = both(line)
        #expect(read != nil, "\(line)", sourceLocation: sourceLocation)
        #expect(read?.quick == read?.parser, "\(line)", sourceLocation: sourceLocation)
    }

    @Test func everySpellingIsArgumentParsersAndEveryOptionHasOne() throws {
        let root = try ToolInfo.decode(TransferTopCommand._dumpHelp()).command
        // Each spelling as argument-parser reads it, with how it takes a value; help and
        // version are argument-parser's own and left to it.
        var declared: [String: QuickRunLine.Kind] = [:]
        for argument in root.arguments ?? [] where argument.kind != .positional && !ManualPage.isBuiltIn(argument) {
            // The quick reader takes the next argument whatever it is, as `.unconditional` does.
            if argument.kind == .option { #expect(argument.parsingStrategy == "unconditional", "\(argument.names?.map(\.spelled) ?? [])") }
            for name in argument.names ?? [] {
                declared[name.spelled] = argument.kind == .flag ? .flag : argument.isRepeating == true ? .list : .value
            }
        }
        var ours: [String: QuickRunLine.Kind] = [:]
        for spelling in QuickRunLine.spellings {
            for name in spelling.names { ours[name] = spelling.kind }
        }
        #expect(declared.count > 60, "\(declared.keys.sorted())")
        #expect(ours == declared)
    }

    @Test func everyCommandWordIsLeftToArgumentParser() throws {
        let root = try ToolInfo.decode(TransferTopCommand._dumpHelp()).command
        let words = (root.subcommands ?? []).flatMap { [$0.commandName] + ($0.aliases ?? []) }
        #expect(Set(QuickRunLine.commandWords) == Set(words))
        // The URLs are the default subcommand's one list of plain values.
        #expect(root.defaultSubcommand == "run")
        let run = root.subcommands?.first { $0.commandName == "run" }
        #expect(run?.arguments?.filter { $0.kind == .positional }.map(\.parsingStrategy) == ["default"])
    }

    @Test func eachSpellingSetsWhatArgumentParserSets() {
        // A value that passes most checks, and one that most refuse (the message names the option).
        for spelling in QuickRunLine.spellings {
            for name in spelling.names {
                var lines: [[String]] = spelling.kind == .flag ? [[name, "http://h/a"], ["http://h/a", name]]
                    : [[name, "7", "http://h/a"], ["http://h/a", name, "x y"]]
                if spelling.kind != .flag && name.hasPrefix("--") { lines.append([name + "=7", "http://h/a"]) }
                for line in lines { Self.expectReadAlike(line) }
            }
        }
    }

    @Test func aPlainRunIsReadWithoutArgumentParser() {
        let plain: [[String]] = [
            ["http://a/x"],
            ["--no-tui", "-o", "out", "http://a/x", "https://b/y"],
            ["--max-connections-per-host", "6", "-i", "list.txt", "--no-tui"],
            ["-H", "A: b", "--header=C: d", "-k", "--csv", "m.csv", "ftp://h/f"],
            ["-T", "-", "http://a/"],
            ["--request-timeout", "3600", "--no-clobber", "--digest", "-u", "a:b", "http://a/"],
            ["--fps", "x", "http://a/"],
            [],
        ]
        for line in plain { Self.expectReadAlike(line) }
    }

    @Test func lessPlainLinesAreLeftToArgumentParser() {
        let left: [[String]] = [
            ["demo"], ["run", "http://a/"], ["http://a/", "status"], ["help"], ["--help"], ["-h"], ["--version"],
            ["--", "http://a/"], ["-kv", "http://a/"], ["-oout", "http://a/"], ["--bogus", "http://a/"],
            ["-o", "a", "-o", "b", "http://a/"], ["--clobber", "--no-clobber", "http://a/"], ["-k", "-k", "http://a/"],
            ["--fps", "-1", "http://a/"], ["--theme=", "http://a/"], ["-H", "-X: y", "http://a/"],
            ["--no-tui=1", "http://a/"], ["http://a/", "-o"], ["-", "http://a/"], ["--generate-completion-script", "bash"],
            ["-o=out", "http://a/"], ["--output-dir=", "x", "http://a/"], ["-"], ["-\u{212A}", "http://a/"], ["--out", "x"],
        ]
        for line in left {
            #expect(QuickRunLine.read(line) == nil, "\(line)")
        }
    }

    static let names = QuickRunLine.spellings.flatMap(\.names) + [
        "--help", "-h", "-help", "--version", "--help-hidden", "--experimental-dump-help", "--generate-completion-script",
        "---completion", "---", "-=x", "--=x", "--No-Tui", "--out", "--no-insecure", "-\u{212A}", "--bogus", "-kv", "--", "-",
    ]
    static let values = [
        "out", "3", "0", "1e3", "-", "-5", "", " ", "\u{0}", "x=y", "==", "A: b", "a\rb", "http://h/a", "https://h/b",
        "ftp://h/c", "file:///f", "nope://x", "é", "e\u{301}", "=\u{338}", "日本", "-\u{301}", "ephemeral", "light", "hosts",
        "user:pw", "ttfb.p99<1s", "127.0.0.1:0", "sha256//x", "=", "a b", "name", "-h", "--help", "--", "---", "-o", "--no-tui",
        "-k", "run", "demo", "clean", "compare", "report", "status", "wait", "attach", "control", "daemon", "help",
    ]
    /// A piece of a line: an option and its value, an option alone, a value alone, `--name=value`,
    /// a name and a value run together (`-oout`), or a URL (so that some lines are whole runs).
    static let piece = zip(Gen<String?>.element(of: names).map { $0! }, Gen<String?>.element(of: values).map { $0! },
                           Gen<Int>.value(in: 0...7))
        .map { name, value, shape -> [String] in
            switch shape {
            case 0: [name, value]
            case 1: [name]
            case 2: [value]
            case 3: [name + "=" + value]
            case 4: [name + value]
            default: ["http://h/a"]
            }
        }
    static let line = piece.array(of: 0...6).map { $0.flatMap { $0 } }

    @Test func randomLinesReadAlike() async {
        // Only the lines the quick reader reads are parsed twice: argument-parser checks its
        // definitions on every parse in a debug build (tens of ms), so not many.
        let counts = Mutex((read: 0, succeeded: 0))
        await propertyCheck(count: 300, input: Self.line) { arguments in
            guard let read = Self.both(arguments) else { return }
            #expect(read.quick == read.parser, "\(arguments)")
            counts.withLock {
                $0.read += 1
                if case .success = read.quick { $0.succeeded += 1 }
            }
        }
        // Enough of the lines reach the comparison, and some of them a whole run.
        let (read, succeeded) = counts.withLock { $0 }
        #expect(read >= 30 && succeeded >= 5, "\(read) read, \(succeeded) runs")
    }
}
