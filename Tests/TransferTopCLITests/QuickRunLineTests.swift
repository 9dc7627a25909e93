import Foundation
import PropertyBased
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

    /// The root's arguments as argument-parser declares them (`--experimental-dump-help`).
    struct Dump: Decodable {
        struct Command: Decodable { var arguments: [Argument] }
        struct Argument: Decodable {
            struct Name: Decodable { var kind: String; var name: String }
            var kind: String
            var isRepeating: Bool
            var names: [Name]?
        }
        var command: Command
    }

    @Test func everySpellingIsArgumentParsersAndEveryOptionHasOne() throws {
        guard case .print(let json) = try TransferTopCommand.command(from: ["--experimental-dump-help"]) else {
            Issue.record("no dump")
            return
        }
        let dump = try JSONDecoder().decode(Dump.self, from: Data(json.utf8))
        // Each spelling as "-x"/"--name" with how it takes a value; help and version are
        // argument-parser's own and left to it.
        var declared: [String: QuickRunLine.Kind] = [:]
        for argument in dump.command.arguments where argument.kind != "positional" {
            for name in argument.names ?? [] {
                let spelled = (name.kind == "short" ? "-" : "--") + name.name
                if ["-h", "--help", "--version"].contains(spelled) { continue }
                declared[spelled] = argument.kind == "flag" ? .flag : argument.isRepeating ? .list : .value
            }
        }
        var ours: [String: QuickRunLine.Kind] = [:]
        for spelling in QuickRunLine.spellings {
            for name in spelling.names { ours[name] = spelling.kind }
        }
        #expect(declared.count > 60, "\(declared.keys.sorted())")
        #expect(ours == declared)
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
        for line in plain {
            let read = Self.both(line)
            #expect(read != nil, "\(line)")
            #expect(read?.quick == read?.parser, "\(line)")
        }
    }

    @Test func lessPlainLinesAreLeftToArgumentParser() {
        let left: [[String]] = [
            ["demo"], ["run", "http://a/"], ["http://a/", "status"], ["help"], ["--help"], ["-h"], ["--version"],
            ["--", "http://a/"], ["-kv", "http://a/"], ["-oout", "http://a/"], ["--bogus", "http://a/"],
            ["-o", "a", "-o", "b", "http://a/"], ["--clobber", "--no-clobber", "http://a/"], ["-k", "-k", "http://a/"],
            ["--fps", "-1", "http://a/"], ["--theme=", "http://a/"], ["-H", "-X: y", "http://a/"],
            ["--no-tui=1", "http://a/"], ["http://a/", "-o"], ["-", "http://a/"], ["--generate-completion-script", "bash"],
        ]
        for line in left {
            #expect(QuickRunLine.read(line) == nil, "\(line)")
        }
    }

    static let names = QuickRunLine.spellings.flatMap(\.names) + ["--help", "-h", "--version", "--bogus", "-kv", "--", "-"]
    static let values = [
        "out", "3", "0", "1e3", "-", "-5", "", "x=y", "A: b", "a\rb", "http://h/a", "https://h/b", "ftp://h/c", "file:///f",
        "demo", "run", "help", "status", "--no-tui", "-k", "ephemeral", "light", "hosts", "user:pw", "ttfb.p99<1s", "127.0.0.1:0",
        "sha256//x", "=", "a b", "name", "nope://x",
    ]
    /// A piece of a line: an option and its value, an option alone, a value alone, or `--name=value`.
    static let piece = zip(Gen<String?>.element(of: names).map { $0! }, Gen<String?>.element(of: values).map { $0! },
                           Gen<Int>.value(in: 0...3))
        .map { name, value, shape -> [String] in
            switch shape {
            case 0: [name, value]
            case 1: [name]
            case 2: [value]
            default: [name + "=" + value]
            }
        }
    static let line = piece.array(of: 0...6).map { $0.flatMap { $0 } }

    @Test func randomLinesReadAlike() async {
        // argument-parser checks its definitions on every parse in a debug build (tens of ms),
        // so not many.
        // Only the lines the quick reader reads are parsed twice.
        await propertyCheck(count: 300, input: Self.line) { arguments in
            if let read = Self.both(arguments) { #expect(read.quick == read.parser, "\(arguments)") }
        }
    }
}
