import Testing
import RunEvidence

@Suite struct ComparisonTests {
    /// Values checked against SciPy's mannwhitneyu(x, y, alternative='two-sided',
    /// method='asymptotic', use_continuity=True).
    @Test func mannWhitneyMatchesTheNormalApproximation() throws {
        let x: [Double] = [1, 2, 3, 4, 5, 6, 7, 8]
        let y: [Double] = [9, 10, 11, 12, 13, 14, 15, 16]
        let r = try #require(MannWhitney.test(x, y))
        #expect(r.u == 0)
        // U = 0, p = 0.0009391057.
        #expect(abs(r.p - 0.0009391057) < 1e-9, "\(r.p)")
        let same = try #require(MannWhitney.test([5, 5, 5], [5, 5, 5]))
        #expect(same.p == 1)
        // Ties: x = 1 2 2 3 3 3, y = 3 3 4 4 5: U = 3, p = 0.0268855119 (tie-corrected).
        let t = try #require(MannWhitney.test([1, 2, 2, 3, 3, 3], [3, 3, 4, 4, 5]))
        #expect(t.u == 3)
        #expect(abs(t.p - 0.0268855119) < 1e-9, "\(t.p)")
        #expect(MannWhitney.test([], [1]) == nil)
    }

    static func samples(_ host: String, ttfb: [Double]) -> [HopSample] {
        ttfb.map { HopSample(host: host, protocolName: "h2", milliseconds: [.ttfb: $0], failed: false) }
    }

    @Test func verdicts() {
        let base = (0..<40).map { 10 + Double($0 % 7) }
        let before = Self.samples("a", ttfb: base) + Self.samples("b", ttfb: base) + Self.samples("c", ttfb: base)
            + Self.samples("d", ttfb: Array(base.prefix(3)))
        let after = Self.samples("a", ttfb: base.map { $0 + 200 }) + Self.samples("b", ttfb: base.reversed())
            + Self.samples("c", ttfb: base.map { $0 / 2 }) + Self.samples("d", ttfb: Array(base.prefix(3)))
        let c = RunComparison(before: before, after: after)
        #expect(c.rows.map { "\($0.host) \($0.verdict.rawValue)" } == ["a slower", "b no change", "c faster", "d too few"])
        #expect(c.hasRegression)
        for line in c.table() { #expect(line.count <= 80, "\(line)") }
        let a = c.table().first { $0.hasPrefix("  ttfb") }!
        #expect(a.hasSuffix("<0.0001  slower"), "\(a)")
        // Under the absolute floor: a 0.5 ms shift on 1 ms values is 50 %, but no change.
        let tiny = RunComparison(before: Self.samples("a", ttfb: Array(repeating: 1, count: 20)),
                                 after: Self.samples("a", ttfb: Array(repeating: 1.5, count: 20)))
        #expect(tiny.rows[0].verdict == .noChange)
    }

    @Test func readsAnExportAndRefusesOthers() throws {
        let header = "session,task_id,task_kind,hop,method,url,status,protocol,remote_address,remote_port,local_port,reused,tls_version,cipher,fetch_start,queued_ms,dns_ms,connect_ms,tls_ms,request_ms,wait_ms,receive_ms,ttfb_ms,total_ms,request_header_bytes,request_body_bytes,response_header_bytes,response_body_bytes,error"
        let text = header + "\r\n" + "s,1,download,1,GET,http://a.example:81/x,200,http/1.1,,,,true,,,,,,,,,,,1.500,2.000,0,0,0,0,\r\n"
            + "s,2,download,1,GET,\"http://a.example:81/y,z\",500,http/1.1,,,,false,,,,,0.100,0.200,,,,,3.000,4.000,0,0,0,0,\"boom \"\"x\"\"\"\r\n"
        let s = try CSVRun.samples(text, name: "a.csv")
        #expect(s.count == 2)
        #expect(s[0] == HopSample(host: "a.example:81", protocolName: "http/1.1", milliseconds: [.ttfb: 1.5, .total: 2], failed: false))
        #expect(s[1].failed && s[1].milliseconds[.dns] == 0.1)
        for (bad, fragment) in [("", "empty file"), ("a,b\r\n1,2\r\n", "not a transfertop --csv export"),
                                (header + "\r\n", "no transactions"), ("\"open", "line 1: a quoted field is never closed"),
                                (header + "\r\ns,1,download,1,GET,u,200,h2,,,,true,,,,,x,,,,,,,,0,0,0,0,\r\n", "dns_ms is 'x'")] {
            #expect(throws: CSVRun.ReadError.self) { try CSVRun.samples(bad, name: "b.csv") }
            do { _ = try CSVRun.samples(bad, name: "b.csv") } catch { #expect(error.reason.contains(fragment), "\(error)") }
        }
    }
}
