import Foundation
import Testing
import TransferKit
@testable import TransferTopCLI
@testable import TransferTopRun

@Suite struct LineFormatTests {
    func task(_ id: Int, _ state: TaskState, status: Int?, bytes: Int64, error: TransferError? = nil, out: String? = nil) -> TaskSnapshot {
        let start = Date(timeIntervalSince1970: 1000)
        return TaskSnapshot(sessionID: 1, sessionName: "default", taskIdentifier: id, kind: .download, state: state,
                            originalURL: "http://user:secret@h/f\(id)", countOfBytesReceived: bytes, statusCode: status,
                            metrics: TaskMetrics(taskIntervalStart: start, taskIntervalEnd: start.addingTimeInterval(1.5)),
                            error: error, outputPath: out)
    }

    @Test func lineHasNoEscapesAndNoSecrets() {
        let line = LineFormat.line(task(1, .completed, status: 200, bytes: 2048, out: "/o/f1"), at: Date(), color: false)
        #expect(!line.contains("\u{1B}"))
        #expect(!line.contains("secret"))
        #expect(line.hasSuffix(" default 1.1 completed ok http://***:***@h/f1 2.0 KiB 200 -> /o/f1"))
        #expect(LineFormat.line(task(1, .running, status: nil, bytes: 0), at: Date(), color: true).contains("\u{1B}[36m"))
    }

    /// Text a server or a file supplied (a session name from an older job file, an error
    /// message, a file name) is printed with its control characters escaped, in the line and
    /// in the summary; the colour codes are ours and stay.
    @Test func serverAndFileTextIsEscapedInLinesAndSummary() {
        var t = task(1, .completed, status: nil, bytes: 0, error: TransferError(.badServerResponse, "bad \u{1B}]0;pwned\u{07}"),
                     out: "/o/\u{1B}[2Jf")
        t.sessionName = "s\u{9B}31m"
        let line = LineFormat.line(t, at: Date(), color: true)
        #expect(line.contains(" s\\x9B31m 1.1 ") && line.contains("error: bad \\x1B]0;pwned\\x07") && line.hasSuffix("-> /o/\\x1B[2Jf"), "\(line)")
        #expect(!line.unicodeScalars.contains { $0 == "\u{07}" || $0 == "\u{9B}" })
        #expect(line.contains("\u{1B}[31m"), "the state's own colour")
        let summary = LineFormat.summary([t]) { _ in false }
        #expect(summary.contains("s\\x9B31m") && summary.contains("/o/\\x1B[2Jf"), "\(summary)")
        #expect(!summary.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" })
    }

    @Test func summaryTable() {
        let tasks = [task(1, .completed, status: 200, bytes: 10, out: "/o/f1"),
                     task(2, .completed, status: 404, bytes: 11),
                     task(3, .completed, status: nil, bytes: 0, error: .cancelled())]
        let text = LineFormat.summary(tasks) { $0.statusCode == 200 }
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("ID   SESSION  STATE                STATUS  BYTES  TIME"))
        #expect(lines[1].hasPrefix("1.1  default  completed ok         200     10 B"))
        #expect(lines[2].contains("completed HTTP 404"))
        #expect(lines[1].hasSuffix("/o/f1"))
        #expect(lines[3].contains("cancelled"))
        #expect(lines[4] == "3 tasks: 1 succeeded, 2 did not (ok 1, HTTP error 1, error 0, cancelled 1)")
    }

    /// A long table goes out in chunks of about 64 KiB, each of whole lines, that together are
    /// the table: its widths come from every row (the widest ID is the last one's), and a
    /// session name that is not ASCII is padded by its characters.
    @Test func aLongTableIsWrittenInWholeLineChunks() throws {
        var tasks = (1...3000).map { task($0, .completed, status: 200, bytes: Int64($0), out: "/o/f\($0)") }
        tasks[0].sessionName = "sé"
        var chunks: [[UInt8]] = []
        LineFormat.summaryTable(tasks, succeeded: { _ in true }) { chunks.append($0) }
        #expect(chunks.count > 1)
        for c in chunks { #expect(c.count <= 64 * 1024 + 4096 && c.last == 0x0A) }
        let text = String(decoding: chunks.joined(), as: UTF8.self)
        #expect(text == LineFormat.summary(tasks) { _ in true } + "\n")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3002)
        #expect(lines[0] == "ID      SESSION  STATE         STATUS  BYTES    TIME    URL / FILE")
        #expect(lines[1] == "1.1     sé       completed ok  200     1 B      1500ms  /o/f1")
        #expect(lines[3000] == "1.3000  default  completed ok  200     2.9 KiB  1500ms  /o/f3000")
        #expect(lines[3001] == "3000 tasks: 3000 succeeded, 0 did not (ok 3000, HTTP error 0, error 0, cancelled 0)")
    }

    /// The table left on the screen at the end says why a task failed (a cancelled one was
    /// asked to stop and says nothing more).
    @Test func summaryTableCarriesTheErrorText() {
        let tasks = [task(1, .completed, status: nil, bytes: 0, error: TransferError(.cannotFindHost, "cannot find host nowhere.invalid")),
                     task(2, .completed, status: nil, bytes: 0, error: .cancelled())]
        let lines = LineFormat.summary(tasks) { _ in false }.split(separator: "\n").map(String.init)
        #expect(lines[1].hasSuffix("http://***:***@h/f1  error: cannot find host nowhere.invalid"), "\(lines[1])")
        #expect(!lines[2].contains("error:"), "\(lines[2])")
    }

    /// The monitor's `n` takes a URL without a scheme as curl does.
    @Test func newTaskURLWithoutScheme() throws {
        #expect(URLCheck.withDefaultScheme(" example.org/x ") == "http://example.org/x")
        #expect(URLCheck.withDefaultScheme("https://h/y") == "https://h/y")
        #expect(try URLCheck.checkURL(URLCheck.withDefaultScheme("127.0.0.1:8080/a")).absoluteString == "http://127.0.0.1:8080/a")
    }

    /// A port too long for an Int is named; a `://` inside a URL that has no authority (a
    /// data: URL's payload) names no port.
    @Test func portsTooLongForAnIntAndPayloadsThatLookLikeURLs() throws {
        #expect(throws: UsageError.self) { try URLCheck.checkURL("http://h:99999999999999999999/x") }
        #expect(throws: UsageError.self) { try URLCheck.checkURL("http://u:p@[::1]:99999999999999999999/x") }
        #expect(throws: Never.self) { try URLCheck.checkURL("data:,http://localhost:8080") }
        #expect(throws: Never.self) { try URLCheck.checkURL("http://[::1]/x?next=http://h:1") }
        #expect(URLCheck.portText("http://u:p@h:123/x") == "123" && URLCheck.portText("http://[::1]/x") == nil)
    }

    /// No escape codes into pipes, with NO_COLOR, or on TERM=dumb (or no TERM).
    @Test func colourOnlyOnColourTerminals() {
        #expect(LineMode.usesColor(isTerminal: true, environment: ["TERM": "xterm"]))
        #expect(!LineMode.usesColor(isTerminal: false, environment: ["TERM": "xterm"]))
        #expect(!LineMode.usesColor(isTerminal: true, environment: ["TERM": "dumb"]))
        #expect(!LineMode.usesColor(isTerminal: true, environment: [:]))
        #expect(!LineMode.usesColor(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": "1"]))
    }
}
