import CCurl
import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// A phase measures the network, not TransferKit's own work. The yardstick is the
/// curl CLI, which runs one transfer in a process of its own and reports `-w` timings from the
/// same libcurl; docs/metrics.md maps each column to its `-w` variable.
@Suite(.serialized) struct MetricsTruthTests {
    /// One fresh request's phases in ms: DNS, TCP connect, TLS (0 on http), TTFB from the slot.
    struct Phases {
        var dns, connect, tls, ttfb: Double
        var all: [(String, Double)] { [("dns", dns), ("connect", connect), ("tls", tls), ("ttfb", ttfb)] }
    }

    /// Runs one data task to the end; its metrics are final once it is completed.
    private func completed(_ session: TransferSession, _ request: TransferRequest) async throws -> TransferDataTask {
        let task = session.dataTask(with: request)
        task.resume()
        try await waitUntil("completed") { task.state == .completed }
        return task
    }

    /// A fresh request of ours, the second of two in a `transferbench phases` process: each on
    /// a new session, so each opens a fresh connection with a full handshake as the curl CLI
    /// does; the first is dropped as curl's is. A process of its own, as curl's: in this test
    /// process the engine thread shares the machine with the rest of the suite (its sessions
    /// and servers), which in a CI run added ~2 ms to our TTFB in every one of 60 samples
    /// while curl, outside, was untouched. Both sides now meet the same machine.
    private func ours(_ u: String) async throws -> Phases {
        let bench = try #require(BuiltExecutable.path("transferbench"), "transferbench not built")
        // With its standard error: a sanitizer's report in the child (TSan exits 66) is the message.
        let r = try await ToolRun.run(bench, ["phases", u, TestServer.caFile, "2"])
        try #require(r.status == 0, "transferbench phases: \(r.status) \(r.output)")
        let rows = r.output.split(separator: "\n").filter { $0.hasPrefix("PHASES ") }.dropFirst().map { line in
            Dictionary(line.split(separator: " ").dropFirst().compactMap { field -> (String, Double)? in
                let kv = field.split(separator: "=")
                return kv.count == 2 ? Double(kv[1]).map { (String(kv[0]), $0) } : nil
            }, uniquingKeysWith: { a, _ in a })
        }
        let v = try #require(rows.first, "transferbench phases: \(r.output)")
        return Phases(dns: try #require(v["dns"]), connect: try #require(v["connect"]),
                      tls: try #require(v["tls"]), ttfb: try #require(v["ttfb"]))
    }

    /// A fresh request by curl, the second of two in one process: `Connection: close` makes it
    /// open a new connection and `--no-sessionid` do a full handshake (as a new session of ours
    /// does). The first is dropped: a new process pays OpenSSL's and the loader's first-use costs
    /// (~2.5 ms more TLS here), which are curl's own work, not the network's.
    private func curls(_ u: String) async throws -> Phases {
        let count = 1
        let format = "%{time_namelookup} %{time_connect} %{time_appconnect} %{time_starttransfer}\\n"
        let r = try await ToolRun.run("/usr/bin/curl", [
            "-s", "--http1.1", "--no-sessionid", "-H", "Connection: close", "--cacert", TestServer.caFile, "-w", format,
        ] + Array(repeating: ["-o", "/dev/null", u], count: count + 1).flatMap { $0 }, withStandardError: false)
        try #require(r.status == 0, "curl: \(r.status) \(r.output)")
        let rows = r.output.split(separator: "\n").dropFirst().map { line in
            line.split(separator: " ").compactMap { Double($0).map { $0 * 1000 } }
        }
        try #require(rows.count == count && rows.allSatisfy { $0.count == 4 }, "curl -w: \(r.output)")
        // -w times are cumulative from the start; appconnect is 0 on http.
        let v = rows[0]
        return Phases(dns: v[0], connect: v[1] - v[0], tls: v[2] > 0 ? v[2] - v[1] : 0, ttfb: v[3])
    }

    /// Interleaved pairs of the same fresh request over HTTP/1.1 until, for every phase, the
    /// lower fifth of ours and the lower fifth of curl's agree: ours at most max(0.5 ms, 10 %)
    /// above curl's (no work of ours inside a phase) and at least half of it (no phase cut
    /// short); at least 5 pairs, at most 60. The looser lower bound: a phase cut short loses
    /// most of itself, while curl, a new process for every pair, pays first-use costs ours (one
    /// process for two requests, like curl's, but a warmer one) does not: in a CI run curl's
    /// TLS lower fifth was 2.69 ms against ours 2.00, while ours sat at 1.98 ms in half its 60
    /// samples and curl's minimum was 1.82 (the same handshake, a noisier process). Earlier, a
    /// 25 % bound had failed that way by 5 µs.
    ///
    /// The lower fifth (20th percentile), not the median: a busy machine (the rest of this suite
    /// runs beside it, maybe a second suite too) only ever adds time to a phase, so the low end
    /// of each side's samples is the cost of the phase itself, the sooner the quieter the
    /// machine; and not the minimum, which one lucky sample sets (with a load of 7, curl's TTFB
    /// had two samples at 3.8 ms among sixty around 6.6, ours none below 4.4: no bias, the
    /// minima still 0.6 ms apart). Sampling on until they meet is sound: work of ours inside a
    /// phase is in every one of our samples and keeps our low end above curl's however many
    /// pairs are taken, and a phase we cut short keeps it below. The server is this test's own,
    /// so the suite's other requests do not queue in front of these.
    static func lowerFifth(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 5] }

    @Test(arguments: ["http", "https"])
    func phasesAgreeWithCurlWriteOut(_ scheme: String) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        // The server thinks for 40 ms before answering, for both clients: TTFB is then ~45 ms,
        // and its 10 % tolerance (4.5 ms) stands above what a loaded machine adds to one side's
        // wakeup. A 1,000-byte answer without it had a TTFB of ~3 ms, where a busy suite beside
        // the test made ours 1.5 ms later than curl's in the lower fifth of 60 samples (a plain
        // run, both clients each in a process of its own): scheduling, not our work. Work of
        // ours inside TTFB of more than a few ms is still caught, as it always was by the other
        // phases, which this does not change.
        let u = (scheme == "https" ? server.httpsBase : server.httpBase) + "/delay?ms=40&size=1000"
        var a: [Phases] = []
        var b: [Phases] = []
        func disagreements() -> [String] {
            a[0].all.indices.compactMap { i in
                let (name, _) = a[0].all[i]
                let mine = Self.lowerFifth(a.map { $0.all[i].1 }), theirs = Self.lowerFifth(b.map { $0.all[i].1 })
                let tolerance = mine >= theirs ? max(0.5, 0.1 * theirs) : max(0.5, 0.5 * theirs)
                return abs(mine - theirs) <= tolerance ? nil
                    : "\(name): ours \(mine) ms, curl \(theirs) ms (±\(tolerance)); ours \(a.map { $0.all[i].1 }), curl \(b.map { $0.all[i].1 })"
            }
        }
        repeat {
            a.append(try await ours(u))
            b.append(try await curls(u))
        } while a.count < 5 || (!Sanitizer.isActive && a.count < 60 && !disagreements().isEmpty)
        // Any build: every phase of ours measured, and TTFB covers the connection it waited for.
        for p in a {
            #expect(p.all.allSatisfy { $0.1 >= 0 } && p.ttfb >= p.dns + p.connect + p.tls, "ours: \(p.all)")
        }
        // Durations of an instrumented build are the instrumentation's (`Sanitizer`).
        if !Sanitizer.isActive {
            #expect(disagreements().isEmpty, "\(scheme) after \(a.count) pairs: \(disagreements())")
        }
    }

    /// The trust store is parsed once per session: a second TLS connection (another host name
    /// for the same server, so no connection or TLS session to reuse) takes less than parsing
    /// the system's CA bundle alone, measured here under the same load. It was 21-47 ms when
    /// libcurl parsed the bundle inside every handshake, handshake plus parse; the handshake
    /// is about 2 ms. The fastest of seven sessions against the fastest of three parses: a
    /// busy machine slows both alike (a fixed 5 ms bound failed at 7.7 ms on a loaded run).
    @Test func secondTLSConnectionOfASessionIsAHandshakeOnly() async throws {
        let server = try await TestServer.get()
        let hosts = [server.httpsBase, server.httpsBase.replacingOccurrences(of: "localhost", with: "127.0.0.1")]
        var seconds: [Double] = []
        for _ in 0..<7 {
            let session = TransferSession(configuration: ephemeralConfig())
            defer { session.finishTasksAndInvalidate() }
            var tls: [Double] = []
            for base in hosts {
                let task = try await completed(session, TransferRequest(url: url(base + "/bytes/10")))
                #expect(task.metrics.transactionMetrics.first?.isReusedConnection == false)
                tls.append(try #require(task.metrics.timings.first?.tlsMs))
            }
            seconds.append(tls[1])
        }
        // Under a sanitizer the in-process server's own handshake is instrumented, and took
        // 26 ms beside the suite: the bound is the plain build's (`Sanitizer`).
        if !Sanitizer.isActive {
            let parse = try #require(Self.bundleParseMs(), "no system CA bundle to compare with")
            #expect(seconds.min()! < parse, "second handshakes \(seconds) ms, a parse of the bundle \(parse) ms")
        }
    }

    /// The fastest of three parses of libcurl's built-in CA bundle into a store, in ms; nil
    /// when libcurl has none or it cannot be read.
    static func bundleParseMs() -> Double? {
        guard let probe = EasyHandle(), let bundle = tk_default_ca_info(probe.raw, 0).map({ String(cString: $0) }),
              FileManager.default.isReadableFile(atPath: bundle) else { return nil }
        let times = (0..<3).map { _ -> Double in
            let start = DispatchTime.now().uptimeNanoseconds
            _ = TrustStore(extraCAFile: nil, system: .init(bundle: bundle, directory: nil))
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        return times.min()
    }

    /// A server that thinks for 200 ms shows it in wait and TTFB, not in queue, connect or TLS.
    @Test func serverThinkTimeIsWaitNotQueueOrTLS() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let task = try await completed(session, TransferRequest(url: url(server.httpsBase + "/delay?ms=200&size=10")))
        let t = try #require(task.metrics.timings.first)
        let wait = try #require(t.waitMs), ttfb = try #require(t.ttfbMs)
        #expect(wait >= 200 && ttfb >= wait, "wait \(wait) ttfb \(ttfb)")
        // Queue, connect and TLS end before the request starts, and the think time happens
        // after the server read the request: the phases follow one another, so none of the
        // earlier ones can hold it. Checked on the dates themselves (durations clamp at zero
        // and would hide an overlap), not against a time bound: a busy machine makes a TLS
        // handshake take 225 ms without any phase being wrong (CI, load 13).
        let m = try #require(task.metrics.transactionMetrics.first)
        let order: [(String, Date?)] = [
            ("fetchStart", m.fetchStartDate), ("queueEnd", m.queueEndDate), ("connectStart", m.connectStartDate),
            ("secureConnectionStart", m.secureConnectionStartDate), ("secureConnectionEnd", m.secureConnectionEndDate),
            ("connectEnd", m.connectEndDate), ("requestStart", m.requestStartDate), ("requestEnd", m.requestEndDate),
            ("responseStart", m.responseStartDate),
        ]
        let known = order.compactMap { name, date in date.map { (name, $0) } }
        #expect(known.count == order.count, "every phase of a fresh HTTPS request has its dates: \(order.map { ($0.0, $0.1 != nil) })")
        for (earlier, later) in zip(known, known.dropFirst()) {
            #expect(earlier.1 <= later.1, "\(earlier.0) \(earlier.1.timeIntervalSince1970) after \(later.0) \(later.1.timeIntervalSince1970)")
        }
    }

    /// TTFB counts from the connection slot: a request queued behind the per-host limit while
    /// the only connection is held at a server-side gate has a long `queued` and a short TTFB.
    @Test func ttfbStartsWhenTheRequestGetsItsConnection() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.httpMaximumConnectionsPerHost = 1
            $0.allowsHTTP2 = false
        })
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        let first = session.dataTask(with: TransferRequest(url: url(server.httpBase + "/bytes/10?headGate=\(gate)")))
        let second = session.dataTask(with: TransferRequest(url: url(server.httpBase + "/bytes/10")))
        first.resume()
        try await server.waitForGate(gate)
        second.resume()
        try await waitUntil("second queued") { second.metrics.transactionMetrics.count == 1 }
        // The first request's server "thinks" for 200 ms while the second waits for its slot.
        try await Task.sleep(nanoseconds: 200_000_000)
        server.openGate(gate)
        try await waitUntil("both done") { first.state == .completed && second.state == .completed }
        let t = try #require(second.metrics.timings.first)
        let queued = try #require(t.queuedMs), ttfb = try #require(t.ttfbMs)
        #expect(queued >= 200, "queued \(queued) ms")
        // Compared with dates, not with the 200 ms: under TSan on a loaded machine a TTFB of
        // 242 ms against a queue of 219 ms was right. The second request got the connection
        // only after the first's response head came (the gate opened after the sleep), so a
        // TTFB counted from the connection ends within the time since that head; one counted
        // from the task's start would span the queue as well.
        let m1 = try #require(first.metrics.transactionMetrics.first), m2 = try #require(second.metrics.transactionMetrics.first)
        let firstHead = try #require(m1.responseStartDate), queueEnd = try #require(m2.queueEndDate)
        let secondHead = try #require(m2.responseStartDate)
        #expect(queueEnd >= firstHead, "the second request left the queue before the first's response head")
        #expect(ttfb <= secondHead.timeIntervalSince(firstHead) * 1000 + 0.001,
                "ttfb \(ttfb) ms includes the \(queued) ms in the queue")
    }

    /// A task cancelled while the server holds its response keeps the phases it reached (DNS,
    /// connect, TLS, request) with the cancellation as its error; they were all lost.
    @Test func aCancelledTaskKeepsThePhasesItReached() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        let task = session.dataTask(with: TransferRequest(url: url(server.httpsBase + "/bytes/10?headGate=\(gate)")))
        task.resume()
        try await server.waitForGate(gate)
        task.cancel()
        try await waitUntil("cancelled") { task.state == .completed }
        server.openGate(gate)
        let m = try #require(task.metrics.transactionMetrics.first)
        let t = try #require(task.metrics.timings.first)
        #expect(t.queuedMs != nil && t.dnsMs != nil && t.connectMs != nil && t.tlsMs != nil, "\(t)")
        #expect(m.requestStartDate != nil && m.responseStartDate == nil)
        #expect(m.errorDescription?.contains("cancelled") == true, "\(m.errorDescription ?? "nil")")
        let csv = try CSVRead.records(TransactionCSV.csv([session.snapshot()].flatMap(\.tasks)))
        let header = csv[0], row = csv[1]
        for column in ["dns_ms", "connect_ms", "tls_ms"] {
            #expect(row[header.firstIndex(of: column)!] != "", "\(column) empty in \(row)")
        }
    }

    /// A session's later connections to a host resume the TLS session of an earlier one (the
    /// share handle keeps the tickets, in memory): the server closes the first connection
    /// (`Connection: close`), so the second request needs a new one.
    @Test func aLaterConnectionResumesTheTLSSession() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false })
        defer { session.finishTasksAndInvalidate() }
        var resumed: [Bool?] = []
        for _ in 0..<2 {
            var request = TransferRequest(url: url(server.httpsBase + "/bytes/10"))
            request.headers.append(HTTPHeader("Connection", "close"))
            let task = try await completed(session, request)
            let m = try #require(task.metrics.transactionMetrics.first)
            #expect(!m.isReusedConnection)
            resumed.append(m.isTLSSessionResumed)
        }
        #expect(resumed == [false, true])
    }

    /// The fetch starts when `resume()` asks, not when the transfer thread gets to it: the
    /// second task of a new session waits while the first one's set-up loads the trust store,
    /// and that wait is its queue time (it was lost before its fetch start).
    @Test func fetchStartIsWhenResumeAsked() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let first = session.dataTask(with: TransferRequest(url: url(server.httpsBase + "/bytes/10?a")))
        let second = session.dataTask(with: TransferRequest(url: url(server.httpsBase + "/bytes/10?b")))
        first.resume()
        second.resume()
        let asked = Date()
        try await waitUntil("both done") { first.state == .completed && second.state == .completed }
        let start = try #require(second.metrics.transactionMetrics.first?.fetchStartDate)
        // 2 ms for the monotonic-to-wall mapping; set-up work on the thread took 10-50 ms here.
        #expect(start.timeIntervalSince(asked) < 0.002, "fetch start \(start.timeIntervalSince(asked) * 1000) ms after resume()")
    }

    /// While a task waits for its first byte, its record already has the connection's phases
    /// (the monitor's DNS, CONN and TLS cells were blank until the hop ended).
    @Test func aRunningTaskShowsItsConnectionPhases() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        let task = session.dataTask(with: TransferRequest(url: url(server.httpsBase + "/bytes/10?headGate=\(gate)")))
        task.resume()
        try await server.waitForGate(gate)
        try await waitUntil("connection dated while running") {
            task.metrics.transactionMetrics.first?.secureConnectionEndDate != nil
        }
        let m = try #require(task.metrics.transactionMetrics.first)
        #expect(m.domainLookupEndDate != nil && m.connectEndDate != nil && m.responseStartDate == nil)
        #expect(m.currentPhase == .wait && task.state == .running)
        server.openGate(gate)
        try await waitUntil("done") { task.state == .completed }
    }
}
