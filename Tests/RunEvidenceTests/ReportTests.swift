import Foundation
import Testing
import RunEvidence

/// The report's model and pages from hand-made exports: reading CSV and HAR alike, escaping,
/// redaction, and the bound on what a large run draws.
@Suite struct ReportTests {
    static let header = "session,task_id,task_kind,hop,method,url,status,protocol,remote_address,remote_port,local_port,reused,"
        + "tls_version,cipher,fetch_start,queued_ms,dns_ms,connect_ms,tls_ms,request_ms,wait_ms,receive_ms,ttfb_ms,total_ms,"
        + "request_header_bytes,request_body_bytes,response_header_bytes,response_body_bytes,error,session_id"

    /// One CSV row; `start` is milliseconds after 12:00:00.000.
    static func row(task: Int, hop: Int, url: String, status: Int?, start: Int, wait: Double, error: String = "") -> String {
        let stamp = String(format: "2026-01-02T12:%02d:%02d.%03dZ", start / 60_000, start / 1000 % 60, start % 1000)
        let fields: [String] = ["s", "\(task)", "data", "\(hop)", "GET", url, status.map(String.init) ?? "", "h2", "127.0.0.1", "443",
                                "5000", "false", "TLSv1.3", "X", stamp, "0.100", "1.000", "2.000", "3.000", "0.500",
                                String(format: "%.3f", wait), "1.000", String(format: "%.3f", 6.5 + wait), String(format: "%.3f", 8.6 + wait),
                                "100", "0", "200", "1000", error, "1"]
        return fields.map { $0.contains(",") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
            .joined(separator: ",")
    }

    static func csv(_ rows: [String]) -> String { ([header] + rows).joined(separator: "\r\n") + "\r\n" }

    @Test func redirectsAreOneTaskAndPartsFollowEachOther() throws {
        let text = Self.csv([
            Self.row(task: 1, hop: 1, url: "https://a.example/start", status: 302, start: 0, wait: 10),
            Self.row(task: 1, hop: 2, url: "https://a.example/end", status: 200, start: 19, wait: 20),
            Self.row(task: 2, hop: 1, url: "https://b.example/x", status: 200, start: 5, wait: 100),
        ])
        let hops = try RunFile.hops(text, name: "t.csv")
        #expect(hops.map(\.task) == ["1.1", "1.1", "1.2"])
        let report = RunReport(name: "t.csv", hops: hops)
        #expect(report.hopCount == 3 && report.taskCount == 2)
        #expect(report.waterfall.map(\.task) == ["1.1", "1.2"] && report.waterfall[0].hops.count == 2)
        // The run ends with task 2: 5 ms in, 108.6 ms long.
        #expect(abs(report.spanMs - 113.6) < 0.001, "\(report.spanMs)")
        let page = ReportHTML.page(report)
        #expect(page.components(separatedBy: "class=\"row hop").count - 1 == 3)
        // The first hop's wait starts after queued, dns, connect, tls and request (6.6 ms).
        let left = 6.6 / 113.6 * 100
        #expect(page.contains("data-part=\"wait\" title=\"wait 10.00ms\" style=\"left:\(String(format: "%.4f", left))%"), "\(page)")
        #expect(report.slowest.first?.url == "https://b.example/x")
    }

    /// A URL or an error text is data: markup in it is shown, never parsed, and the page has
    /// exactly one script, its own. User information and secret-looking query values are
    /// redacted again, since a hand-made file may hold them.
    @Test func untrustedTextIsEscapedAndSecretsRedacted() throws {
        let evil = "https://user:pa55word@evil.example/<script>alert(1)</script>?token=s3cr3tvalue&q=\"'><img src=x onerror=alert(2)>"
        let text = Self.csv([Self.row(task: 1, hop: 1, url: evil, status: 500, start: 0, wait: 1,
                                      error: "<b>boom</b> at https://u:pa55word@evil.example/?api_key=s3cr3tvalue")])
        let report = RunReport(name: "<i>name</i>.csv", hops: try RunFile.hops(text, name: "x"))
        let page = ReportHTML.page(report)
        #expect(page.components(separatedBy: "<script").count - 1 == 1)
        for bad in ["<img", "<b>", "<i>", "pa55word", "s3cr3tvalue", "onerror=alert(2)>"] {
            #expect(!page.contains(bad), "\(bad)")
        }
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && page.contains("&lt;b&gt;boom&lt;/b&gt;"))
        #expect(report.errorCount == 1)
        let lines = ReportText.lines(report).joined(separator: "\n")
        #expect(!lines.contains("pa55word") && !lines.contains("s3cr3tvalue"))
    }

    /// Nothing is fetched: no external script, style, image, font or frame; the policy says none.
    @Test func thePageIsSelfContained() throws {
        let report = RunReport(name: "r", hops: try RunFile.hops(Self.csv([Self.row(task: 1, hop: 1, url: "http://a/", status: 200, start: 0, wait: 1)]), name: "r"))
        let page = ReportHTML.page(report)
        for outside in ["src=", "<link", "@import", "url(", "<iframe", "href=\"http", "<img"] {
            #expect(!page.contains(outside), "\(outside)")
        }
        #expect(page.contains("default-src 'none'"))
    }

    static let har = """
    {"log": {"version": "1.2", "creator": {"name": "transfertop", "version": "1"}, "entries": [
      {"startedDateTime": "2026-01-02T12:00:00.000Z", "time": 30,
       "request": {"method": "GET", "url": "https://h.example/a"}, "response": {"status": 301, "httpVersion": "HTTP/2"},
       "timings": {"blocked": 1, "dns": 2, "connect": 7, "ssl": 4, "send": 1, "wait": 15, "receive": 4},
       "_sessionId": 1, "_taskId": 7, "_hop": 1, "_error": null},
      {"startedDateTime": "2026-01-02T12:00:00.031Z", "time": 10,
       "request": {"method": "GET", "url": "https://h.example/b"}, "response": {"status": 200, "httpVersion": "HTTP/2"},
       "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0.5, "wait": 8, "receive": 1.5},
       "_sessionId": 1, "_taskId": 7, "_hop": 2, "_error": null}
    ]}}
    """

    /// HAR's connect includes ssl and -1 is "absent": the hop's parts are the CSV's.
    @Test func harReadsAsTheCSVDoes() throws {
        let hops = try RunFile.hops("  \n" + Self.har, name: "r.har")
        #expect(hops.count == 2 && hops.allSatisfy { $0.task == "1.7" } && hops.map(\.hop) == [1, 2])
        #expect(hops[0].parts == [.queued: 1, .dns: 2, .connect: 3, .tls: 4, .request: 1, .wait: 15, .receive: 4])
        #expect(hops[0].ttfbMs == 25 && hops[0].totalMs == 30 && hops[0].protocolName == "h2")
        #expect(hops[1].parts[.dns] == nil && hops[1].parts[.connect] == nil && hops[1].ttfbMs == 8.5)
        #expect(hops[1].sample.milliseconds == [.ttfb: 8.5, .total: 10])
        for (text, fragment) in [("{", "not a HAR file (not JSON)"), ("{\"log\": {}}", "no 'entries' at .log"),
                                 ("{\"log\": {\"entries\": []}}", "the archive has no entries"),
                                 ("{\"log\": {\"entries\": [{\"request\": 3}]}}", "wrong type at .log.entries[0].request")] {
            #expect(throws: CSVRun.ReadError.self) { try RunFile.hops(text, name: "r.har") }
            do { _ = try RunFile.hops(text, name: "r.har") } catch { #expect(error.reason.contains(fragment), "\(error.reason)") }
        }
    }

    /// 100,000 hops: the waterfall draws at most its limit (the slowest hops' tasks among
    /// them) and says so; the tables still count every hop.
    @Test func aLargeRunDrawsABoundedSample() throws {
        let base = Date(timeIntervalSince1970: 1_767_355_200)
        var hops: [ReportHop] = []
        for i in 0..<100_000 {
            let wait = i % 9973 == 0 ? 5000.0 : Double(i % 50)
            hops.append(ReportHop(task: "1.\(i)", hop: 1, method: "GET", url: "https://h\(i % 3).example/\(i)", status: 200,
                                  protocolName: "h2", start: base.addingTimeInterval(Double(i) / 1000),
                                  parts: [.wait: wait, .receive: 1], ttfbMs: wait, totalMs: wait + 1, error: nil, failed: false))
        }
        let clock = ContinuousClock()
        let started = clock.now
        let report = RunReport(name: "big", hops: hops)
        let page = ReportHTML.page(report)
        let elapsed = clock.now - started
        #expect(report.hopCount == 100_000 && report.drawnHops <= RunReport.defaultDrawLimit && report.drawnHops > 900)
        #expect(page.components(separatedBy: "class=\"row hop").count - 1 == report.drawnHops)
        #expect(page.contains("Drawn: \(report.drawnHops) of 100000 hops"))
        let slowTasks = Set(hops.filter { $0.totalMs == 5001 }.map(\.task))
        #expect(slowTasks.isSubset(of: Set(report.waterfall.map(\.task))))
        #expect(report.statistics.all.count == 100_000)
        #expect(page.utf8.count < 2_000_000, "\(page.utf8.count) bytes")
        print("report of 100,000 hops: \(elapsed), \(page.utf8.count) bytes of HTML")
    }

    /// Times past a million hours are no times: HAR's are left out as its -1 is, the CSV's
    /// refused, so no sum of a hop's parts overflows and every page draws.
    @Test func absurdTimesNeitherTrapNorDraw() throws {
        let har = Self.har.replacingOccurrences(of: "\"dns\": 2,", with: "\"dns\": 1e308,")
            .replacingOccurrences(of: "\"wait\": 15,", with: "\"wait\": 1e308,")
            .replacingOccurrences(of: "\"time\": 30,", with: "\"time\": 1.7e308,")
        let hops = try RunFile.hops(har, name: "r.har")
        #expect(hops[0].parts[.dns] == nil && hops[0].parts[.wait] == nil && hops[0].totalMs == nil)
        #expect(hops[0].ttfbMs == nil)
        let report = RunReport(name: "r", hops: hops)
        #expect(ReportHTML.page(report).contains("</html>"))
        #expect(!ReportText.lines(report).isEmpty)
        let csv = Self.csv([Self.row(task: 1, hop: 1, url: "http://a/", status: 200, start: 0, wait: 1)
            .replacingOccurrences(of: ",1.000,2.000,", with: ",1e308,2.000,")])
        #expect { try RunFile.hops(csv, name: "r.csv") } throws: { error in
            (error as? CSVRun.ReadError)?.reason.contains("dns_ms is '1e308', not milliseconds") == true
        }
    }

    @Test func histogramBins() throws {
        let linear = try #require(HistogramBins([1, 2, 3, 4], bins: 3))
        #expect(!linear.logarithmic && linear.counts == [1, 1, 2] && linear.edges.first == 1 && linear.edges.last == 4)
        let log = try #require(HistogramBins([1, 5, 50, 1000], bins: 3))
        #expect(log.logarithmic && log.counts == [2, 1, 1])
        #expect(HistogramBins([5, 5])?.counts == [2] && HistogramBins([]) == nil)
        // Any finite values, however far apart, fall in a bar; values that are not finite fall in none.
        let wide = try #require(HistogramBins([-1.7e308, 0, 1.7e308, .infinity, .nan], bins: 4))
        #expect(wide.counts == [1, 0, 1, 1] && wide.edges.allSatisfy(\.isFinite))
        #expect(HistogramBins([.nan, .infinity]) == nil)
    }
}
