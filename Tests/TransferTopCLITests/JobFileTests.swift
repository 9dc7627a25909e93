import Foundation
import Testing
@testable import TransferTopCLI

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

    static let broken: [(String, String)] = [
        ("name = \"x\"", "bad.toml:1: field 'name': outside a table; start with [[session]]"),
        ("[[session]]\nkind = \"shared\"", "bad.toml:2: field 'kind': must be \"default\" or \"ephemeral\", not \"shared\""),
        ("[[session]]\nmax_connections_per_host = \"two\"", "bad.toml:2: field 'max_connections_per_host': must be a number, got a string"),
        ("[[session]]\nrequest_timeout = -3", "bad.toml:2: field 'request_timeout': must be a number of seconds from 0.001 to 315360000 (ten years)"),
        ("[[session]]\nheaders = [\"NoColon\"]", "bad.toml:2: field 'headers': bad header 'NoColon' (expected 'Name: value')"),
        ("[[session]]\nheaders = [\"A: b\"", "bad.toml:2: field 'headers': expected `,` or `]` in the array (arrays must be on one line)"),
        ("[[session]]\nname = \"open", "bad.toml:2: field 'name': unterminated string"),
        ("[[session]]\nname = bare", "bad.toml:2: field 'name': cannot read value `bare` (strings need double quotes)"),
        ("[[session]]\ncolour = \"red\"", "bad.toml:2: field 'colour': unknown session field (fields: name, kind, max_connections_per_host, request_timeout, resource_timeout, headers)"),
        ("[[session]]\n[[session.task]]\nkind = \"download\"", "bad.toml:2: field 'url': missing (every task needs a url)"),
        ("[[session]]\n[[session.task]]\nurl = \"nope\"", "bad.toml:3: field 'url': not a URL: 'nope'"),
        ("[[session]]\n[[session.task]]\nkind = \"stream\"\nurl = \"http://h/\"", "bad.toml:3: field 'kind': must be \"download\", \"data\" or \"upload\", not \"stream\""),
        ("[[session]]\n[[session.task]]\nkind = \"upload\"\nurl = \"http://h/\"", "bad.toml:2: field 'file': missing (an upload task needs a file)"),
        ("[[session]]\n[[session.task]]\nurl = \"http://h/\"\nfile = \"/dev/null\"", "bad.toml:4: field 'file': only upload tasks take a file"),
        ("[[session]]\n[[session.task]]\nurl = \"http://h/\"\nurl = \"http://i/\"", "bad.toml:4: field 'url': given twice"),
        ("[[session.task]]", "bad.toml:1: `[[session.task]]` before any `[[session]]`"),
        ("[session]", "bad.toml:1: unknown table [session] (expected [[session]] or [[session.task]])"),
        ("[[session]]\njust words", "bad.toml:2: expected `key = value`, `[[session]]` or `[[session.task]]`, got \"just words\""),
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
