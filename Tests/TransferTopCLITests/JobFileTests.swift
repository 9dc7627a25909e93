import Foundation
import LoopbackServer
import TestSupport
import TransferModel
import Testing
@testable import TransferTopCLI
@testable import TransferTopRun

@Suite struct JobFileTests {
    static let valid = """
    # two sessions
    [[session]]
    name = "api"            # comment after a value
    kind = "ephemeral"
    max_connections_per_host = 2
    request_timeout = 5
    resource_timeout = 600
    headers = ["Accept: application/json", "X-Tag: a#b"]

    [[session.task]]
    kind = "data"
    url = "http://127.0.0.1:1/headers"

    [[session.task]]
    url = "http://127.0.0.1:1/bytes/10"
    method = "get"

    [[session]]
    name = "uploads"
    [[session.task]]
    kind = "upload"
    url = "http://127.0.0.1:1/echo"
    file = "/dev/null"
    method = "POST"
    """

    /// DECISIONS 111: the command line's -k, --pinnedpubkey, -u (with its scheme), --netrc,
    /// -b and -c hold for every session of a job; none is dropped.
    @Test func theCommandLinesSecurityOptionsReachEverySession() throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.valid.write(toFile: dir + "/j.toml", atomically: true, encoding: .utf8)
        var o = Options()
        o.insecure = true
        o.pinnedPublicKeys = "sha256//AAAA"
        o.user = UserOption(user: "al", password: "pw")
        o.httpAuthentication = .digest
        o.netrc = NetrcUse(file: dir + "/netrc")
        o.cookieFiles = [dir + "/cookies.txt"]
        o.cookieStrings = ["x=1"]
        o.cookieJar = dir + "/jar.txt"
        let plan = try JobFile.load(dir + "/j.toml", outputDirectory: dir, defaults: o)
        #expect(plan.sessions.count == 2)
        for s in plan.sessions {
            #expect(s.insecure && s.pinnedPublicKeys == "sha256//AAAA", "\(s.name)")
            #expect(s.credential == TransferCredential(user: "al", password: "pw") && s.httpAuthentication == .digest)
            #expect(s.netrc == NetrcUse(file: dir + "/netrc") && s.cookieFiles == [dir + "/cookies.txt"])
            #expect(s.headers.filter { $0.name == "Cookie" }.map(\.value) == ["x=1"])
        }
        #expect(plan.cookieJar == dir + "/jar.txt")
    }

    /// `--max-filesize` and `--max-redirs` are limits the user set for the whole run: a job's
    /// sessions keep them as they keep the time-outs (they were once dropped with `--job`).
    @Test func theCommandLinesLimitsReachEverySession() throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.valid.write(toFile: dir + "/j.toml", atomically: true, encoding: .utf8)
        var o = Options()
        o.maxFileSize = 4096
        o.maxRedirects = 2
        o.compressed = true
        let plan = try JobFile.load(dir + "/j.toml", outputDirectory: dir, defaults: o)
        #expect(plan.sessions.count == 2)
        for s in plan.sessions {
            #expect(s.maxFileSize == 4096 && s.maxRedirects == 2 && s.compressed, "\(s.name)")
        }
    }

    /// The same through the binary: `-u` given with `--job` answers the server's challenge.
    @Test func aJobRunUsesTheCommandLinesCredential() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let job = """
        [[session]]
        name = "a"
        [[session.task]]
        url = "\(server.httpBase)/auth/basic/al/pw1"
        """
        try job.write(toFile: dir + "/j.toml", atomically: true, encoding: .utf8)
        let r = try await Run.binary(["--no-tui", "-u", "al:pw1", "--job", dir + "/j.toml", "-o", dir + "/out"],
                                     environment: ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/out/pw1", encoding: .utf8) == "authenticated as al\n")
    }

    @Test func parsesSessionsAndTasks() throws {
        let s = try JobFile.parse(Self.valid, file: "j.toml")
        #expect(s.count == 2)
        #expect(s[0].name == "api" && s[0].kind == .ephemeral && s[0].maxConnectionsPerHost == 2)
        #expect(s[0].requestTimeout == 5 && s[0].resourceTimeout == 600)
        #expect(s[0].headers.map(\.name) == ["Accept", "X-Tag"] && s[0].headers[1].value == "a#b")
        #expect(s[0].tasks.map(\.kind) == [.data, .download])
        #expect(s[0].tasks[1].method == "GET")
        #expect(s[1].tasks[0].kind == .upload && s[1].tasks[0].method == "POST" && s[1].tasks[0].file == "/dev/null")
    }

    /// TOML 1.0 beyond the old subset: inline tables, arrays over several lines, literal and
    /// multi-line strings, integers with underscores, dotted keys are all read.
    @Test func fullTOML() throws {
        let s = try JobFile.parse("""
            [[session]]
            name = 'literal \\ name'
            resource_timeout = 1_000
            request_timeout = 2.5
            headers = [
              "Accept: */*",   # one per line
              \"\"\"X-Long: a\"\"\",
            ]
            task = [ { url = "http://h/a" }, { kind = "data", url = "http://h/b" } ]
            """, file: "j.toml")
        #expect(s[0].name == "literal \\ name" && s[0].resourceTimeout == 1000 && s[0].requestTimeout == 2.5)
        #expect(s[0].headers.map(\.name) == ["Accept", "X-Long"])
        #expect(s[0].tasks.map(\.kind) == [.download, .data] && s[0].tasks[1].url.path == "/b")
    }

    /// Errors name file, line and field; the line is the field's own, also in later tables.
    static let broken: [(String, String)] = [
        ("name = \"x\"", "bad.toml:1: field 'name': unknown top-level key (a job file holds [[session]] tables)"),
        ("[[session]]\nkind = \"shared\"", "bad.toml:2: field 'kind': must be \"default\" or \"ephemeral\", not \"shared\""),
        ("[[session]]\nmax_connections_per_host = \"two\"", "bad.toml:2: field 'max_connections_per_host': must be a number, got a string"),
        ("[[session]]\nmax_connections_per_host = 2.5", "bad.toml:2: field 'max_connections_per_host': must be a whole number from 1 to 1000"),
        ("[[session]]\nrequest_timeout = -3", "bad.toml:2: field 'request_timeout': must be a number of seconds from 0.001 to 315360000 (ten years)"),
        ("[[session]]\nheaders = [\"NoColon\"]", "bad.toml:2: field 'headers': bad header 'NoColon' (expected 'Name: value')"),
        ("[[session]]\nheaders = [1, 2]", "bad.toml:2: field 'headers': must be an array of strings like [\"Accept: */*\"]"),
        ("[[session]]\ncolour = \"red\"", "bad.toml:2: field 'colour': unknown session field (fields: name, kind, max_connections_per_host, request_timeout, resource_timeout, headers, task)"),
        ("[[session]]\n[[session.task]]\nkind = \"download\"", "bad.toml:2: field 'url': missing (every task needs a url)"),
        ("[[session]]\n[[session.task]]\nurl = \"nope\"", "bad.toml:3: field 'url': not a URL: 'nope'"),
        ("[[session]]\n[[session.task]]\nkind = \"stream\"\nurl = \"http://h/\"", "bad.toml:3: field 'kind': must be \"download\", \"data\" or \"upload\", not \"stream\""),
        ("[[session]]\n[[session.task]]\nkind = \"upload\"\nurl = \"http://h/\"", "bad.toml:2: field 'file': missing (an upload task needs a file)"),
        ("[[session]]\n[[session.task]]\nurl = \"http://h/\"\nfile = \"/dev/null\"", "bad.toml:4: field 'file': only upload tasks take a file"),
        ("[[session]]\n[[session.task]]\nurl = 3", "bad.toml:3: field 'url': must be a string, got an integer"),
        ("[[session]]\n[[session.task]]\nurl = \"http://h/\"\nspeed = \"max\"", "bad.toml:4: field 'speed': unknown task field (fields: kind, url, file, method)"),
        ("[[session]]\n[[session.task]]\nurl = \"http://h/\"\n\n[[session]]\nname = \"b\"\n[[session.task]]\nurl = \"http://h/\"\n[[session.task]]\n\nurl = \"ftp:x\"",
         "bad.toml:11: field 'url': not a URL: 'ftp:x'"),
        ("[session]\nname = \"x\"", "bad.toml:1: field 'session': must be [[session]] tables, got a table"),
        ("# empty", "bad.toml:1: no [[session]] table"),
    ]

    @Test(arguments: broken) func brokenFixtures(_ text: String, _ message: String) {
        do {
            _ = try JobFile.parse(text, file: "bad.toml")
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    /// Syntax errors come from toml++ with their line; the message says the file is not TOML.
    static let syntax: [(String, Int)] = [
        ("[[session]]\nheaders = [\"A: b\"", 2),
        ("[[session]]\nname = \"open", 2),
        ("[[session]]\nname = bare", 2),
        ("[[session]]\n[[session.task]]\nurl = \"http://h/\"\nurl = \"http://i/\"", 4),
        ("[[session]]\njust words", 2),
        ("[[session]]\nname = \"bad \\q escape\"", 2),
    ]

    @Test(arguments: syntax) func syntaxErrors(_ text: String, _ line: Int) {
        do {
            _ = try JobFile.parse(text, file: "bad.toml")
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.line == line)
            #expect(error.description.hasPrefix("bad.toml:\(line): not valid TOML: "), "\(error.description)")
        }
    }

    @Test func examplesInDocsParse() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/examples")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: docs.path))?.filter { $0.hasSuffix(".toml") } ?? []
        #expect(!files.isEmpty)
        for f in files {
            let text = try String(contentsOf: docs.appendingPathComponent(f), encoding: .utf8)
            #expect(throws: Never.self) { try JobFile.parse(text, file: f, baseDirectory: docs.path) }
        }
    }
}
