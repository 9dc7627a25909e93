import Testing
import RunEvidence

@Suite struct BudgetTests {
    @Test func parsesTheDocumentedForms() throws {
        let b = try BudgetParser.parse("ttfb.p95<200ms, connect.p99<=50ms,errors<1%,host=api.example:8443:total.max<2s,dns.p99.9<500us")
        #expect(b == [
            Budget(metric: .phase(.ttfb, .percentile(95)), limit: 200),
            Budget(metric: .phase(.connect, .percentile(99)), inclusive: true, limit: 50),
            Budget(metric: .errors, limit: 1),
            Budget(host: "api.example:8443", metric: .phase(.total, .max), limit: 2000),
            Budget(metric: .phase(.dns, .percentile(99.9)), limit: 0.5),
        ])
        #expect(b.map(\.description) == ["ttfb.p95<200ms", "connect.p99<=50ms", "errors<1%", "host=api.example:8443:total.max<2000ms",
                                         "dns.p99.9<0.5ms"])
    }

    @Test func errorsNameTheColumn() {
        let cases: [(String, Int, String)] = [
            ("", 1, "expected a budget"),
            ("ttfb.p95<200", 13, "expected a unit"),
            ("ttfb.p95>200ms", 9, "expected '<' or '<='"),
            ("ttfb<200ms", 5, "expected '.'"),
            ("ttfb.q95<1ms", 6, "expected a statistic"),
            ("ttfb.p100<1ms", 7, "between 0 and 100"),
            ("latency.p95<1ms", 1, "expected dns, connect"),
            ("errors<1", 9, "expected '%'"),
            ("errors<1%,", 11, "expected a budget"),
            ("errors<1% x", 11, "expected ',' or the end"),
            ("host=:ttfb.p95<1ms", 6, "expected a host name"),
            ("host=abc", 9, "expected ':'"),
            ("errors<101%", 8, "at most 100%"),
        ]
        for (text, column, fragment) in cases {
            do {
                _ = try BudgetParser.parse(text)
                Issue.record("'\(text)' parsed")
            } catch {
                #expect(error.column == column, "'\(text)': \(error)")
                #expect(error.reason.contains(fragment), "'\(text)': \(error)")
            }
        }
    }

    @Test func checksAgainstARun() throws {
        var stats = RunStatistics()
        for i in 0..<100 {
            stats.add(HopSample(host: "fast.example", protocolName: "h2", milliseconds: [.ttfb: 10 + Double(i % 5)], failed: false))
            stats.add(HopSample(host: "slow.example", protocolName: "http/1.1", milliseconds: [.ttfb: 210], failed: i < 2))
        }
        let budgets = try BudgetParser.parse("ttfb.p95<100ms,host=fast.example:ttfb.p95<100ms,errors<1%,tls.p99<1ms,host=typo.example:errors<5%")
        let results = Budget.check(budgets, stats)
        #expect(results.map(\.breached) == [true, false, true, false, true])
        #expect(results[0].line == "budget breached: ttfb.p95<100ms (all hosts): 210ms")
        #expect(results[2].value == 1.0)  // 2 of 200 hops: 1 % is not below 1 %
        #expect(results[3].note == "no samples")
        #expect(results[4].line == "budget breached: host=typo.example:errors<5%: no transfer to typo.example")
        let e = try BudgetParser.parse("errors<=1%")
        #expect(!Budget.check(e, stats)[0].breached)
    }
}
