import Foundation
import Testing
import RunEvidence
import TransferModel

@Suite struct RunStatisticsTests {
    static let t0 = Date(timeIntervalSince1970: 1_000_000)

    /// A hop: fresh connection (DNS, connect, optional TLS) or reused (none of them).
    static func hop(_ url: String, reused: Bool, tls: Bool, ttfbMs: Double, status: Int = 200, proto: String = "http/1.1")
        -> TransactionMetrics {
        func at(_ ms: Double) -> Date { t0.addingTimeInterval(ms / 1000) }
        var m = TransactionMetrics(method: "GET", url: url, statusCode: status, fetchStartDate: at(0), queueEndDate: at(0),
                                   networkProtocolName: proto, isReusedConnection: reused, currentPhase: .done)
        if !reused {
            m.domainLookupStartDate = at(0); m.domainLookupEndDate = at(1)
            m.connectStartDate = at(1); m.connectEndDate = at(tls ? 5 : 3)
            if tls { m.secureConnectionStartDate = at(3); m.secureConnectionEndDate = at(5) }
        }
        m.requestStartDate = at(5); m.requestEndDate = at(5)
        m.responseStartDate = at(ttfbMs); m.responseEndDate = at(ttfbMs + 1)
        return m
    }

    static func task(_ id: Int, _ hops: [TransactionMetrics], error: TransferError? = nil) -> TaskSnapshot {
        TaskSnapshot(sessionID: 1, sessionName: "s", taskIdentifier: id, kind: .download, state: .completed,
                     originalURL: hops.first?.url ?? "http://nowhere.example/", statusCode: hops.last?.statusCode,
                     metrics: TaskMetrics(taskIntervalStart: t0, taskIntervalEnd: t0.addingTimeInterval(1), transactionMetrics: hops),
                     error: error)
    }

    @Test func absentPhasesAreNotZeros() {
        var stats = RunStatistics()
        // One fresh connection, nine reused: DNS and connect have one sample each, TLS none.
        for i in 0..<10 {
            for s in HopSample.samples(Self.task(i, [Self.hop("http://a.example:8080/x", reused: i > 0, tls: false, ttfbMs: 20)])) {
                stats.add(s)
            }
        }
        let g = try! #require(stats.groups[HostKey(host: "a.example:8080", protocolName: "http/1.1")])
        #expect(g.count == 10 && g.errors == 0)
        #expect(g.histogram(.dns).count == 1)
        #expect(g.histogram(.connect).count == 1)
        #expect(g.histogram(.tls).count == 0)
        #expect(g.histogram(.tls).milliseconds(at: 50) == nil)
        // p50 of DNS is the one real lookup (1 ms), not 0 from nine reused connections.
        #expect(abs(g.histogram(.dns).milliseconds(at: 50)! - 1) < 0.01)
        #expect(g.histogram(.ttfb).count == 10)
        #expect(abs(g.histogram(.ttfb).milliseconds(at: 99)! - 20) < 0.05)
    }

    @Test func percentilesAreWithinAThousandth() {
        var h = PhaseHistogram()
        for v in 1...1000 { h.record(milliseconds: Double(v)) }
        for (p, exact) in [(50.0, 500.0), (90, 900), (99, 990)] {
            let got = h.milliseconds(at: p)!
            #expect(abs(got - exact) / exact < 0.001, "p\(p) = \(got)")
        }
        #expect(h.maxMilliseconds == 1000)
        #expect(PhaseHistogram().maxMilliseconds == nil)
    }

    @Test func errorsCountFailuresAndHTTPErrorsButNotCancellations() {
        let ok = Self.task(1, [Self.hop("https://h.example/a", reused: false, tls: true, ttfbMs: 9, proto: "h2")])
        let notFound = Self.task(2, [Self.hop("https://h.example/b", reused: true, tls: true, ttfbMs: 9, status: 404, proto: "h2")])
        let refused = Self.task(3, [], error: TransferError(.cannotConnectToHost, "refused"))
        let cancelled = Self.task(4, [Self.hop("https://h.example/c", reused: true, tls: true, ttfbMs: 9, proto: "h2")],
                                  error: TransferError(.cancelled, "cancelled"))
        let stats = RunStatistics([ok, notFound, refused, cancelled].flatMap(HopSample.samples))
        let h2 = try! #require(stats.groups[HostKey(host: "h.example", protocolName: "h2")])
        #expect(h2.count == 3 && h2.errors == 1)
        #expect(h2.histogram(.tls).count == 1)
        let none = try! #require(stats.groups[HostKey(host: "nowhere.example", protocolName: "-")])
        #expect(none.count == 1 && none.errors == 1 && none.phases.isEmpty)
        #expect(stats.all.count == 4 && stats.all.errors == 2)
    }

    @Test func authorities() {
        #expect(HopSample.authority("https://user:pw@Example.ORG:8443/x?y") == "example.org:8443")
        #expect(HopSample.authority("http://[::1]:80/") == "[::1]:80")
        #expect(HopSample.authority("data:,hi") == "data:,hi")
        var stats = RunStatistics()
        stats.add(HopSample(host: "a.example:1", protocolName: "h2", milliseconds: [.ttfb: 1], failed: false))
        stats.add(HopSample(host: "a.example:2", protocolName: "h2", milliseconds: [.ttfb: 2], failed: true))
        #expect(stats.host("a.example")?.count == 2)
        #expect(stats.host("a.example:2")?.errors == 1)
        #expect(stats.host("b.example") == nil)
    }

    @Test func theTableFitsEightyColumnsAndShowsAbsentAsDash() {
        var stats = RunStatistics()
        stats.add(HopSample(host: String(repeating: "long-host-name.", count: 10) + "example", protocolName: "http/1.1",
                            milliseconds: [.ttfb: 123_456.7, .total: 9_999_999_999], failed: false))
        stats.add(HopSample(host: "b.example", protocolName: "h2", milliseconds: [.dns: 0.0123, .ttfb: 5], failed: true))
        let lines = EvidenceFormat.table(stats)
        for line in lines { #expect(line.count <= 80, "\(line.count): \(line)") }
        #expect(lines.contains("b.example  h2  1 hop, 1 error (100.0%)"))
        let tls = try! #require(lines.first { $0.hasPrefix("  tls") })
        #expect(tls.split(separator: " ") == ["tls", "0", "-", "-", "-", "-"])
        let dns = try! #require(lines.first { $0.hasPrefix("  dns") })
        #expect(dns.contains("0.012ms"))
    }

    @Test func jsonLeavesAbsentPercentilesOut() {
        var stats = RunStatistics()
        stats.add(HopSample(host: "a.example", protocolName: "h2", milliseconds: [.ttfb: 12.5], failed: false))
        let json = EvidenceFormat.json(stats, tasks: TaskTotals(total: 1, succeeded: 1)).serialized()
        #expect(json.hasPrefix(#"{"tasks":{"total":1,"succeeded":1,"failed":0},"hosts":[{"host":"a.example","protocol":"h2","count":1,"errors":0,"phases":{"dns":{"count":0},"#))
        #expect(json.contains(#""ttfb":{"count":1,"p50_ms":12.500,"p90_ms":12.500,"p99_ms":12.500,"max_ms":12.500}"#))
    }
}
