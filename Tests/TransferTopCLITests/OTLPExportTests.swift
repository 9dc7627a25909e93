import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferModel

/// `--otlp URL`: the real binary against the loopback server, exporting to an OTLP/HTTP
/// receiver on the official protobuf definitions (TestSupport's `OTLPReceiver`). The spans are
/// checked against the run's own CSV: one trace per task, a child span per hop, a child span
/// per phase, the same times.
@Suite struct OTLPExportTests {
    #if OpenTelemetry
    static let secrets = ["alice", "pa55word", "t0ken", "s3cret", "YWxpY2U6cGE1NXdvcmQ"]

    @Test func tasksAreTracesWhosePhasesMatchTheCSV() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let receiver = try await OTLPReceiver.start(writingTo: dir + "/received.jsonl")
        let ca = dir + "/ca.pem", csv = dir + "/run.csv"
        try server.writeCACertificate(to: ca)
        let redirecting = server.httpBase.replacingOccurrences(of: "http://", with: "http://alice:pa55word@") + "/redirect/1?token=t0ken"
        let plain = server.httpsBase + "/bytes/2000"
        let r = try await Run.binary(["--no-tui", "-o", dir + "/out", "--otlp", receiver.url, "--csv", csv, "--cacert", ca,
                                      "-H", "Authorization: Bearer s3cret", redirecting, plain],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        // Received before the binary exited: the exporter flushes at the end of the run.
        let lines = try receiver.received()
        await receiver.stop()
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!r.stderr.contains("warning"), "\(r.stderr)")
        let requests = lines.filter { $0.type == "request" }
        #expect(!requests.isEmpty && requests.allSatisfy { $0.path == "/v1/traces" && $0.content_type == "application/x-protobuf" })
        for line in requests {
            let everything = (line.body_text ?? "") + "\(line.headers ?? [:])"
            for secret in Self.secrets { #expect(!everything.contains(secret), "\(secret) was exported") }
        }
        let spans = lines.filter { $0.type == "span" }
        #expect(spans.allSatisfy { $0.resource?["service.name"] == .string("transfertop") })
        let rows = try CSVRead.records(String(contentsOfFile: csv, encoding: .utf8))
        let header = try #require(rows.first)
        let csvRows = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        #expect(csvRows.count == 3)  // two hops of the redirect, one of the plain URL

        let roots = spans.filter { ($0.parent_span_id ?? "").isEmpty }
        #expect(roots.count == 2)
        #expect(Set(roots.map(\.trace_id)).count == 2, "one trace per task")
        for row in csvRows { try Self.check(row, spans: spans, roots: roots, port: server.httpPort) }
        // Each root covers its hops.
        for root in roots {
            let hops = spans.filter { $0.parent_span_id == root.span_id }
            #expect(hops.allSatisfy { ($0.start_time_unix_nano ?? 0) >= (root.start_time_unix_nano ?? .max)
                && ($0.end_time_unix_nano ?? .max) <= (root.end_time_unix_nano ?? 0) })
            #expect(root.attributes?["http.response.status_code"] == .int(200))
        }
    }

    /// One CSV row (a hop) against its span and its phase spans.
    static func check(_ row: [String: String], spans: [OTLPReceiver.Line], roots: [OTLPReceiver.Line], port: Int) throws {
        let task = try #require(Int64(row["task_id"] ?? ""))
        let root = try #require(roots.first { $0.attributes?["transfertop.task.id"] == .int(task) })
        let hopNumber = try #require(Int64(row["hop"] ?? ""))
        let hop = try #require(spans.first { $0.parent_span_id == root.span_id && $0.attributes?["transfertop.hop"] == .int(hopNumber) })
        #expect(hop.trace_id == root.trace_id)
        #expect(hop.kind == 3, "SPAN_KIND_CLIENT")
        #expect(hop.name == row["method"])
        let a = hop.attributes ?? [:]
        #expect(a["http.request.method"] == .string(row["method"] ?? ""))
        #expect(a["url.full"] == .string((row["url"] ?? "").replacingOccurrences(of: "***:***@", with: "")))
        #expect(a["server.address"] == .string(URL(string: row["url"] ?? "")?.host ?? "?"))
        #expect(a["http.response.status_code"] == .int(Int64(row["status"] ?? "") ?? -1))
        #expect(a["network.protocol.version"] == .string(row["protocol"] == "h2" ? "2" : "1.1"))
        if row["url"]?.hasPrefix("http:") == true { #expect(a["server.port"] == .int(Int64(port))) }
        #expect(hopNumber == 1 ? a["http.request.resend_count"] == nil : a["http.request.resend_count"] == .int(hopNumber - 1))
        // The start is the CSV's fetch_start (which is cut to the millisecond).
        let fetchStart = try #require(Self.epochMs(row["fetch_start"] ?? ""))
        let startMs = Double(hop.start_time_unix_nano ?? 0) / 1e6
        #expect(startMs - fetchStart >= 0 && startMs - fetchStart < 1, "start \(startMs) vs \(fetchStart)")
        #expect(abs(Self.durationMs(hop) - (Double(row["total_ms"] ?? "") ?? -1)) < 0.01, "total_ms")
        let phases = spans.filter { $0.parent_span_id == hop.span_id }
        #expect(phases.allSatisfy { $0.trace_id == root.trace_id })
        for name in ["queued", "dns", "connect", "tls", "request", "wait", "receive"] {
            let span = phases.first { $0.name == name }
            if let ms = Double(row["\(name)_ms"] ?? "") {
                let got = try #require(span, "no \(name) span for \(row["url"] ?? "")")
                #expect(abs(Self.durationMs(got) - ms) < 0.01, "\(name): \(Self.durationMs(got)) vs \(ms)")
            } else {
                #expect(span == nil, "a \(name) span where the CSV has none")
            }
        }
    }

    static func durationMs(_ s: OTLPReceiver.Line) -> Double {
        Double((s.end_time_unix_nano ?? 0) - (s.start_time_unix_nano ?? 0)) / 1e6
    }

    static func epochMs(_ iso: String) -> Double? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: iso).map { ($0.timeIntervalSince1970 * 1000).rounded() }
    }

    /// A collector that is down (nothing listens on the port): a warning on stderr, the run's
    /// outcome and status unchanged, and no wait at exit.
    @Test func aCollectorThatIsDownCostsAWarningNotTheRun() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Bound, not listening: refused for as long as the test holds it.
        let socket = try LoopbackSocket(listening: false)
        let closed = socket.port
        let r = try await Run.binary(["--no-tui", "-o", dir + "/out", "--otlp", "http://127.0.0.1:\(closed)",
                                      "\(server.httpBase)/bytes/100"], environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("transfertop: warning: traces to http://127.0.0.1:\(closed)/v1/traces"), "\(r.stderr)")
        // Said at once at exit (the probe's refusal), not after the exporter's 5 s timeout.
        #expect(r.stderr.contains("traces to http://127.0.0.1:\(closed)/v1/traces: not sent at exit: connection refused"), "\(r.stderr)")
        #expect(!r.stderr.contains("no answer within 5 s"), "\(r.stderr)")
        #expect(fileSize(dir + "/out/100") == 100)
        withExtendedLifetime(socket) {}
    }

    /// The daemon, started on demand by a command whose environment has TRANSFERTOP_OTLP,
    /// exports its tasks; `daemon stop` sends what it holds before the daemon exits.
    @Test func theDaemonExportsWhenTRANSFERTOP_OTLPIsInItsEnvironment() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try BackgroundDaemonTests.Rig()
        let receiver = try await OTLPReceiver.start(writingTo: rig.dir + "/received.jsonl")
        let url = "\(server.httpBase)/redirect/1"
        let submit = try await rig.run(["--background", "traced", "-o", rig.out, url], extra: ["TRANSFERTOP_OTLP": receiver.url])
        #expect(submit.status == 0, "\(submit.stdout)\(submit.stderr)\(rig.log)")
        let wait = try await rig.run(["wait", "traced"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        let stop = try await rig.run(["daemon", "stop"])
        #expect(stop.status == 0, "\(stop.stdout)\(stop.stderr)\(rig.log)")
        let spans = try receiver.received().filter { $0.type == "span" }
        await receiver.stop()
        let roots = spans.filter { ($0.parent_span_id ?? "").isEmpty }
        #expect(roots.count == 1, "\(rig.log)")
        #expect(roots.first?.attributes?["transfertop.redirect_count"] == .int(1))
        // Named for the session it was submitted to, not the configuration kind (`default`).
        #expect(roots.first?.attributes?["transfertop.session"] == .string("traced"), "\(roots.first?.attributes ?? [:])")
        let hops = spans.filter { $0.parent_span_id == roots.first?.span_id }
        #expect(hops.map(\.kind) == [3, 3] && Set(hops.map(\.trace_id)) == [roots.first?.trace_id])
        #expect(rig.log.contains("exporting each task as a trace (TRANSFERTOP_OTLP)"), "\(rig.log)")
    }

    @Test func anOTLPURLMustBeHTTP() async throws {
        let r = try await Run.binary(["--no-tui", "--otlp", "grpc://127.0.0.1:4317", "http://127.0.0.1:1/x"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--otlp must be an http:// or https:// URL"), "\(r.stderr)")
        let background = try await Run.binary(["--background", "b", "--otlp", "http://127.0.0.1:4318", "http://127.0.0.1:1/x"])
        #expect(background.status == 2)
        #expect(background.stderr.contains("--background does not take --otlp"), "\(background.stderr)")
    }
    #else
    /// Built without the OpenTelemetry trait (the sanitizer builds): `--otlp` says so, exit 2.
    @Test func thisBuildSaysItHasNoOpenTelemetry() async throws {
        let r = try await Run.binary(["--no-tui", "--otlp", "http://127.0.0.1:4318", "http://127.0.0.1:1/x"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("this build of transfertop has no OpenTelemetry support"), "\(r.stderr)")
    }
    #endif
}
