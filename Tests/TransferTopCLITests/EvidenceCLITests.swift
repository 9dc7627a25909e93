import Foundation
import LoopbackServer
import PropertyBased
import RunEvidence
import TestSupport
import Testing
@testable import TransferTopCLI
@testable import TransferTopRun

/// A run as evidence, end to end against the loopback server: the per-host summary, `--slo`
/// budgets and `compare`, with one host slowed by a deliberate delay (docs/evidence.md).
@Suite struct EvidenceCLITests {
    /// The delay injected on the slowed host: large against loopback, so the slowed host's
    /// numbers are bounded below by it whatever the machine's load. While the whole suite runs
    /// in parallel on two cores, the unchanged host's median total moved by up to half a second
    /// between the two runs (927 ms against 410 ms for 100 bytes: queued behind its six
    /// connections while the machine was busiest), so `compare` is told that a change is at
    /// least a second, a third of the delay, twice what was seen.
    static let delayMs = 3000
    static let minimumChangeMs = 1000
    /// The slowed host's delay in the run before as well (the run after adds `delayMs`): in both
    /// runs the unchanged host's transfers then run while the slowed host's wait at the server.
    /// With no delay before, the unchanged host shared the CPU with the other host's transfers
    /// in one run and not in the other, and a loaded machine made it a second "faster".
    static let baseDelayMs = 2000
    static let perHost = 16

    /// An HTTP/1.1 host (127.0.0.1:PORT) and an h2 host (localhost:PORT, TLS). Run twice at
    /// once — the h2 host delayed by `baseDelayMs` before and by `delayMs` more after — so both
    /// runs share the machine's load, and the unchanged host's numbers are alike in both.
    @Test func aSlowedHostIsNamedComparedAndBudgeted() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ca = dir + "/ca.pem"
        try server.writeCACertificate(to: ca)
        func urls(delay: Int) -> [String] {
            (0..<Self.perHost).flatMap { i in
                ["\(server.httpBase)/bytes/100?seed=\(i)", "\(server.httpsBase)/delay?ms=\(delay)&size=100&seed=\(i)"]
            }
        }
        // `--request-timeout 3600`: nothing here may time out on a starved machine (DECISIONS 167).
        func args(_ name: String, delay: Int) -> [String] {
            ["--no-tui", "-o", dir + "/" + name, "--csv", dir + "/\(name).csv", "--cacert", ca, "--request-timeout", "3600"]
                + urls(delay: delay)
        }
        let before = try Run.spawn(args("before", delay: Self.baseDelayMs) + ["--summary", "json"])
        let after = try Run.spawn(args("after", delay: Self.baseDelayMs + Self.delayMs)
                                  + ["--summary", "hosts", "--slo", "ttfb.p95<100ms,errors<1%"])
        let (b, a) = (await before.wait(), await after.wait())
        #expect(b.status == 0, "\(b.stdout)\(b.stderr)")
        // The budget: half the hops took the delay, so the run's p95 TTFB is over 100 ms.
        #expect(a.status == 3, "\(a.stdout)\(a.stderr)")
        #expect(a.stderr.contains("transfertop: budget breached: ttfb.p95<100ms (all hosts): "), "\(a.stderr)")
        #expect(!a.stderr.contains("errors<1%"), "\(a.stderr)")

        // The summary names the slow host's TTFB, at least the injected delay.
        let h2 = "localhost:\(server.httpsPort)", h1 = "127.0.0.1:\(server.httpPort)"
        let lines = a.stdout.components(separatedBy: "\n")
        let group = try #require(lines.firstIndex { $0.hasPrefix(h2 + "  h2  \(Self.perHost) hops, 0 errors") }, "\(a.stdout)")
        let ttfb = try #require(lines[group...].first { $0.hasPrefix("  ttfb") })
        let cells = ttfb.split(separator: " ")
        #expect(cells.count == 6 && cells[1] == "\(Self.perHost)")
        #expect(Self.milliseconds(cells[2]).map { $0 >= Double(Self.baseDelayMs + Self.delayMs) } == true, "\(ttfb)")
        // The table (after the state lines) fits 80 columns.
        let table = lines.drop { !$0.contains(" hops, ") }.filter { $0.hasPrefix("  ") || $0.contains(" hops, ") }
        #expect(table.count == 2 * 7)
        for line in table { #expect(line.count <= 80, "\(line)") }

        // The JSON of the run before: both hosts; plain HTTP has no TLS samples and
        // its reused connections no connect samples (at most 6 connections were opened).
        let json = try #require(try JSONSerialization.jsonObject(with: Data(b.stdout.utf8)) as? [String: Any], "\(b.stdout)")
        let hosts = try #require(json["hosts"] as? [[String: Any]])
        #expect(Set(hosts.compactMap { $0["host"] as? String }) == [h1, h2])
        let plain = try #require(hosts.first { $0["host"] as? String == h1 })
        let phases = try #require(plain["phases"] as? [String: [String: Any]])
        #expect(plain["count"] as? Int == Self.perHost && plain["protocol"] as? String == "http/1.1")
        #expect(phases["tls"]?["count"] as? Int == 0 && phases["tls"]?["p50_ms"] == nil)
        let connects = try #require(phases["connect"]?["count"] as? Int)
        #expect(connects >= 1 && connects <= 6)
        #expect(phases["ttfb"]?["count"] as? Int == Self.perHost)
        #expect((json["tasks"] as? [String: Int])?["succeeded"] == Self.perHost * 2)

        // compare: the h2 host's TTFB is slower, the HTTP/1.1 host's unchanged (within the
        // minimum change, a third of the injected delay).
        let c = try await Run.binary(["compare", dir + "/before.csv", dir + "/after.csv", "--min-change", "\(Self.minimumChangeMs)"])
        #expect(c.status == 1, "\(c.stdout)\(c.stderr)")
        func verdict(_ host: String, _ phase: String) -> String? {
            let out = c.stdout.components(separatedBy: "\n")
            guard let start = out.firstIndex(of: host), let row = out[start...].first(where: { $0.hasPrefix("  " + phase + " ") })
            else { return nil }
            return ["slower", "faster", "no change", "too few"].first { row.hasSuffix("  " + $0) }
        }
        #expect(verdict(h2, "ttfb") == "slower", "\(c.stdout)")
        #expect(verdict(h1, "ttfb") == "no change", "\(c.stdout)")
        #expect(verdict(h1, "total") == "no change", "\(c.stdout)")
        #expect(c.stderr.contains("regression: \(h2) ttfb is slower"))
        // The same run against itself: no regression, exit 0.
        let same = try await Run.binary(["compare", dir + "/after.csv", dir + "/after.csv"])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
    }

    static func milliseconds<S: StringProtocol>(_ cell: S) -> Double? {
        if cell.hasSuffix("ms") { return Double(cell.dropLast(2)) }
        if cell.hasSuffix("s") { return Double(cell.dropLast()).map { $0 * 1000 } }
        return nil
    }

    @Test func badFilesAreUsageErrors() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "a,b\n1,2\n".write(toFile: dir + "/other.csv", atomically: true, encoding: .utf8)
        let header = TransferModelHeader.text
        try (header + "\r\n").write(toFile: dir + "/empty.csv", atomically: true, encoding: .utf8)
        for (args, fragment) in [
            ([dir + "/missing.csv", dir + "/other.csv"], "cannot read CSV export '\(dir)/missing.csv'"),
            ([dir + "/other.csv", dir + "/other.csv"], "not a transfertop --csv export (no column 'url'"),
            ([dir + "/empty.csv", dir + "/empty.csv"], "the export has no transactions"),
            ([dir, dir + "/empty.csv"], "it is a directory"),
            ([dir + "/empty.csv"], "missing expected argument"),
            ([dir + "/empty.csv", dir + "/empty.csv", "--threshold", "x"], "--threshold must be a number"),
        ] {
            let r = try await Run.binary(["compare"] + args)
            #expect(r.status == 2, "\(args): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.lowercased().contains(fragment.lowercased()), "\(args): \(r.stderr)")
        }
    }

    @Test func badBudgetsNameTheirColumn() throws {
        for (slo, fragment) in [("ttfb.p95<200", "at column 13: expected a unit"), ("ttfb.p95>1ms", "at column 9: expected '<'"),
                                ("host=a.example:latency<1ms", "at column 16: expected dns")] {
            #expect(throws: UsageError.self) { try TransferTopCommand.command(from: ["--slo", slo, "http://a.example/"]) }
            do { _ = try TransferTopCommand.command(from: ["--slo", slo, "http://a.example/"]) } catch {
                #expect(error.reason.contains(fragment), "\(error.reason)")
            }
        }
        guard case .run(let o) = try TransferTopCommand.command(from: ["--slo", "errors<1%", "--summary", "all", "http://a.example/"]) else {
            Issue.record("not a run")
            return
        }
        #expect(o.slo == "errors<1%" && o.summary == .all)
        #expect(throws: UsageError.self) { try TransferTopCommand.command(from: ["--summary", "csv", "http://a.example/"]) }
        #expect(throws: UsageError.self) { try TransferTopCommand.command(from: ["--background", "n", "--slo", "errors<1%", "http://a.example/"]).checkedSubmission() }
    }

    /// The daemon's journal keeps submissions as Options JSON: one written before `--summary`
    /// and `--slo` existed (no such keys) still decodes, to the defaults.
    @Test func optionsWithoutTheNewKeysStillDecode() throws {
        var o = Options()
        o.urls = ["http://a.example/"]
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(o)) as? [String: Any])
        #expect(object["summary"] == nil && object["slo"] == nil)
        object["summary"] = nil
        let decoded = try JSONDecoder().decode(Options.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(decoded == o && decoded.summary == nil && decoded.slo == nil)
    }

    static let pieces = ["ttfb", "dns", "connect", "tls", "total", "errors", ".", "p", "p95", "p99.9", "max", "<", "<=", ">",
                         "200", "0.5", "ms", "s", "us", "%", ",", " ", "host=", "a.example", ":", "8080", "[::1]", "é", "\u{0}", "\n"]
    static let text = Gen<String?>.element(of: pieces).map { $0! }.array(of: 0...16).map { $0.joined() }

    /// Random text never crashes the parser; an error's column is within the text (or just
    /// past it); what parses prints back as text that parses to the same budgets.
    @Test func theParserTakesAnyTextAndRoundTrips() async {
        await propertyCheck(count: 600, input: Self.text) { text in
            do {
                let budgets = try BudgetParser.parse(text)
                let again = try BudgetParser.parse(budgets.map(\.description).joined(separator: ","))
                #expect(again == budgets, "\(text)")
            } catch let error as BudgetSyntaxError {
                #expect(error.column >= 1 && error.column <= text.unicodeScalars.count + 1, "\(text): \(error)")
            } catch {
                Issue.record("\(text): \(error)")
            }
        }
    }
}

private enum TransferModelHeader {
    static let text = "session,task_id,task_kind,hop,method,url,status,protocol,remote_address,remote_port,local_port,reused,tls_version,cipher,fetch_start,queued_ms,dns_ms,connect_ms,tls_ms,request_ms,wait_ms,receive_ms,ttfb_ms,total_ms,request_header_bytes,request_body_bytes,response_header_bytes,response_body_bytes,error"
}

private extension Command {
    /// The `--background` submission's own checks (what `BackgroundCLI.submit` runs first).
    func checkedSubmission() throws {
        if case .run(let o) = self { try o.checkBackgroundSubmission() }
    }
}
