import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI
import TransferKit
@testable import TransferTopRun

/// `--log-file`, `--log-level`, `--trace` (swift-log) and `--prometheus` (/metrics),
/// through the real binary against the loopback server.
@Suite struct ObservabilityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The trace shows the request and response heads as curl -v does, in a 0600 file, with
    /// every credential (header, URL user info, query secret) redacted, and nothing of it on
    /// stdout.
    @Test func traceGoesToTheLogFileWithSecretsRedacted() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/run.log", ca = dir + "/ca.pem"
        try server.writeCACertificate(to: ca)
        let url = server.httpBase.replacingOccurrences(of: "http://", with: "http://alice:pa55word@") + "/bytes/100?token=t0ken"
        // HTTP/2 too: libcurl notes every h2 request header a second time; a Set-Cookie makes
        // libcurl's cookie engine note the cookie it stored.
        let h2 = server.httpsBase + "/cookies/set?session=j4r"
        let r = try await Run.binary(["--no-tui", "-o", dir + "/out", "--trace", "--log-level", "debug", "--log-file", log,
                                      "--cacert", ca, "-H", "Authorization: Bearer s3cret", "-H", "Cookie: sid=c00kie", url, h2],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("transfertop.curl: > GET /bytes/100?token=REDACTED HTTP/1.1"), "\(text)")
        #expect(text.contains("> User-Agent: transfertop/"))
        #expect(text.contains("> Authorization: Bearer REDACTED"))
        #expect(text.contains("< HTTP/1.1 200"))
        #expect(text.contains("info transfertop: task 1.1 completed"))
        #expect(text.contains("> GET /cookies/set?session=REDACTED HTTP/2"), "the h2 request head is traced")
        #expect(text.contains("< HTTP/2 200"))
        // alice: the URL's user name; YWxpY2U6cGE1NXdvcmQ: base64 of alice:pa55word; j4r: the cookie value.
        for secret in ["s3cret", "c00kie", "pa55word", "t0ken", "YWxpY2U6cGE1NXdvcmQ", "alice", "=j4r", "\"j4r\""] {
            #expect(!text.contains(secret), "\(secret) in the log")
        }
        #expect(!r.stdout.contains("transfertop.curl") && !r.stderr.contains("transfertop.curl"))
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// Without a file, line mode logs on stderr when a level is asked for; without any log
    /// option nothing is logged at all.
    @Test func lineModeLogsOnStderrOnlyWhenAsked() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state"]
        let asked = try await Run.binary(["--no-tui", "-o", dir + "/a", "--log-level", "debug", "\(server.httpBase)/bytes/10"], environment: env)
        #expect(asked.status == 0)
        #expect(asked.stderr.contains("debug transfertop: task 1.1 running"), "\(asked.stderr)")
        #expect(!asked.stdout.contains("transfertop: task"))
        let quiet = try await Run.binary(["--no-tui", "-o", dir + "/b", "\(server.httpBase)/bytes/10"], environment: env)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    /// The monitor owns the screen: logging there needs a file (checked before any transfer).
    /// A response header holding escape sequences (OSC retitle, clear screen) reaches the
    /// `--trace` lines on stderr escaped, never as raw ESC or BEL.
    @Test func traceEscapesControlCharactersFromTheServer() async throws {
        let server = try RawResponseServer(response: Array(
            "HTTP/1.1 200 OK\r\nX-Evil: \u{1B}]0;pwned\u{07}\u{1B}[2Jx\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
        defer { server.stop() }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "-o", dir + "/out", "--trace", "http://127.0.0.1:\(server.port)/f"],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("< X-Evil: \\x1B]0;pwned\\x07\\x1B[2Jx"), "\(r.stderr)")
        #expect(!r.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" })
        #expect(!r.stdout.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" })
    }

    @Test func theMonitorNeedsALogFile() throws {
        var o = Options()
        o.trace = true
        #expect(throws: UsageError("--log-level and --trace need --log-file while the monitor runs (the screen is the monitor's)")) {
            _ = try RunObservability.make(o, monitor: true)
        }
        o.trace = false
        let (quiet, server) = try RunObservability.make(o, monitor: true)
        #expect(server == nil && quiet.recordsSentHeaders)
    }

    /// A scrape during a run, read by prometheus_client's own parser: one task finished, one
    /// held running at a gate, and the phases of both in the histograms (labelled by host and
    /// protocol): the held download's were observed at its response head, not at its end.
    @Test func prometheusScrapeDuringARun() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gate = UUID().uuidString
        // An hour of idle time for the held download: under a sanitizer the scrapes below can
        // take past the 60 s default, which ended the run and its /metrics server mid-test.
        let run = try Run.spawn(["--no-tui", "-o", dir + "/out", "--prometheus", "0", "--max-connections-per-host", "2", "--request-timeout", "3600",
                                 "\(server.httpBase)/bytes/1000?seed=1", "\(server.httpBase)/bytes/500000?gate=\(gate)&holdAfter=1000"],
                                environment: ["XDG_STATE_HOME": dir + "/state"])
        defer { server.openGate(gate) }
        try await server.waitForGate(gate)
        let outPath = run.outPath
        let output: @Sendable () -> String = { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
        try await waitFor("the metrics address and the first task done") {
            output().contains(" completed ok ") && output().contains("/metrics")
        }
        let line = try #require(output().split(separator: "\n").first { $0.contains("/metrics") })
        let address = String(line.split(separator: " ").last ?? "")
        try await waitFor("the held download's TTFB in the histogram", checking: {
            let text = try await Self.tool("/usr/bin/curl", ["-sf", address]).output
            return text.split(separator: "\n").contains { $0.hasPrefix("transfertop_ttfb_seconds_count") && $0.hasSuffix(" 2") }
        })
        let scrape = try await Self.tool("/usr/bin/curl", ["-sf", address])
        #expect(scrape.status == 0, "\(scrape.output)")
        let samples = try await Self.parse(scrape.output)
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
        }
        #expect(value("transfertop_tasks", ["state": "running"]) == 1)
        #expect(value("transfertop_tasks", ["state": "completed"]) == 1)
        #expect(value("transfertop_tasks_finished_total", ["outcome": "ok"]) == 1)
        #expect((value("transfertop_bytes_received_total") ?? 0) >= 2000)
        let labels = ["host": "127.0.0.1", "protocol": "http/1.1"]
        // Both tasks have a TTFB; the second may have reused the first's connection (no connect).
        #expect(value("transfertop_ttfb_seconds_count", labels) == 2)
        #expect([1, 2].contains(value("transfertop_connect_seconds_count", labels) ?? 0))
        for phase in ["connect", "ttfb"] { #expect((value("transfertop_\(phase)_seconds_sum", labels) ?? -1) >= 0) }
        let other = try await Self.tool("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", address.replacingOccurrences(of: "/metrics", with: "/")])
        #expect(other.output == "404")
        server.openGate(gate)
        let r = await run.wait()
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    }

    struct Sample: Decodable { var name: String; var labels: [String: String]; var value: Double }

    /// prometheus_client's parser, through scripts/prom-parse.py.
    static func parse(_ text: String) async throws -> [Sample] {
        let input = try privateDirectory("prom") + "/metrics.txt"
        try text.write(toFile: input, atomically: true, encoding: .utf8)
        let python = try RequiredTool.python(importing: "prometheus_client")
        let r = try await tool("/bin/sh", ["-c", "'\(python)' '\(root)/scripts/prom-parse.py' < '\(input)'"])
        #expect(r.status == 0, "\(r.output)")
        return try JSONDecoder().decode([Sample].self, from: Data(r.output.utf8))
    }

    /// stdout only: it is parsed.
    static func tool(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await ToolRun.run(executable, arguments, withStandardError: false)
    }
}

/// The gauges follow each task to completion once; a late event cannot count it back.
@Suite struct FleetMetricsTests {
    @Test func lateEventsAfterCompletionAreDropped() {
        let m = FleetMetrics()
        func event(_ s: TaskState) -> TransferEvent {
            TransferEvent(date: Date(), sessionID: 1, taskIdentifier: 7, kind: .taskStateChanged(s))
        }
        for s in [TaskState.running, .suspended, .running, .completed, .suspended, .completed] { m.observe(event(s)) }
        let text = m.text()
        #expect(text.contains(#"transfertop_tasks{state="completed"} 1"#), "\(text)")
        #expect(text.contains(#"transfertop_tasks{state="running"} 0"#))
        #expect(text.contains(#"transfertop_tasks{state="suspended"} 0"#))
    }

    /// A hop observed at its response head is not observed again when its task completes.
    @Test func aHopObservedAtItsHeadIsCountedOnce() {
        let m = FleetMetrics()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        func at(_ ms: Double) -> Date { start.addingTimeInterval(ms / 1000) }
        var hop = TransactionMetrics(method: "GET", url: "http://h.test/a", fetchStartDate: at(0), queueEndDate: at(0),
                                     domainLookupStartDate: at(0), domainLookupEndDate: at(1), connectStartDate: at(1),
                                     connectEndDate: at(2), requestStartDate: at(2), responseStartDate: at(5), currentPhase: .receive)
        var task = TaskSnapshot(sessionID: 1, sessionName: "s", taskIdentifier: 1, kind: .download, state: .running,
                                originalURL: "http://h.test/a", networkProtocolName: "http/1.1",
                                metrics: TaskMetrics(taskIntervalStart: start, taskIntervalEnd: nil, redirectCount: 0, transactionMetrics: [hop]))
        #expect(m.awaitsHeads(of: task.id))
        m.observeHeads(task)
        #expect(!m.awaitsHeads(of: task.id))
        func ttfbCount() -> Substring? { m.text().split(separator: "\n").first { $0.hasPrefix("transfertop_ttfb_seconds_count") } }
        #expect(ttfbCount()?.hasSuffix(" 1") == true, "\(m.text())")
        hop.responseEndDate = at(50)
        hop.currentPhase = .done
        hop.networkProtocolName = "http/1.1"
        task.state = .completed
        task.metrics = TaskMetrics(taskIntervalStart: start, taskIntervalEnd: at(50), redirectCount: 0, transactionMetrics: [hop])
        m.record(task)
        #expect(ttfbCount()?.hasSuffix(" 1") == true, "\(m.text())")
        #expect(m.awaitsHeads(of: task.id), "the completed task is forgotten")
    }
}
