import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// Per-transaction metrics against the real loopback server.
@Suite(.serialized) struct MetricsTests {
    private func metrics(_ session: TransferSession, _ u: String) async throws -> (TaskMetrics, TransferResponse?) {
        let box = Box<TransferResponse?>()
        let task = session.dataTask(with: TransferRequest(url: url(u))) { _, r, _ in box.set(r) }
        task.resume()
        let response = try await box.wait()
        return (task.metrics, response)
    }

    @Test func plainHTTPFirstRequestThenReuse() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let (first, _) = try await metrics(session, "\(server.httpBase)/bytes/1000")
        let t1 = try #require(first.transactionMetrics.first)
        #expect(first.transactionMetrics.count == 1)
        #expect(t1.domainLookupStartDate != nil && t1.domainLookupEndDate != nil)
        #expect(t1.connectStartDate != nil && t1.connectEndDate != nil)
        #expect(t1.secureConnectionStartDate == nil && t1.secureConnectionEndDate == nil, "no TLS on http")
        #expect(t1.isReusedConnection == false)
        #expect(t1.networkProtocolName == "http/1.1")
        #expect(t1.remoteAddress == "127.0.0.1" && t1.remotePort == server.httpPort)
        #expect(t1.localPort != nil)
        #expect(t1.statusCode == 200)
        #expect(t1.countOfResponseBodyBytesReceived == 1000)
        #expect(t1.countOfRequestHeaderBytesSent > 0 && t1.countOfResponseHeaderBytesReceived > 0)
        #expect(t1.requestStartDate != nil && t1.responseStartDate != nil && t1.responseEndDate != nil)
        #expect(t1.currentPhase == .done)

        let (second, _) = try await metrics(session, "\(server.httpBase)/bytes/1000")
        let t2 = try #require(second.transactionMetrics.first)
        #expect(t2.isReusedConnection)
        #expect(t2.domainLookupStartDate == nil && t2.connectStartDate == nil && t2.secureConnectionStartDate == nil,
                "absent phases are nil, never zero")
        #expect(t2.localPort == t1.localPort)
        session.finishTasksAndInvalidate()
    }

    @Test func httpsHasTLSPhaseVersionAndCipherAndH2() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let (m, _) = try await metrics(session, "\(server.httpsBase)/bytes/1000")
        let t = try #require(m.transactionMetrics.first)
        #expect(t.secureConnectionStartDate != nil && t.secureConnectionEndDate != nil)
        #expect(t.tlsProtocolVersion?.hasPrefix("TLSv1.") == true)
        #expect(t.tlsCipherSuite?.isEmpty == false)
        #expect(t.networkProtocolName == "h2")
        session.finishTasksAndInvalidate()
    }

    /// The server holds the head at a gate: TTFB is at least the time the test kept the gate
    /// shut and at most the whole call, both measured here (bounds from events, not guesses).
    @Test func serverDelayShowsAsTimeToFirstByte() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let gate = UUID().uuidString
        let box = Box<TransferResponse?>()
        let start = Date()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/10?headGate=\(gate)"))) { _, r, _ in box.set(r) }
        task.resume()
        try await server.waitForGate(gate)
        try await Task.sleep(nanoseconds: 200_000_000)  // the server "thinks" for at least 200 ms
        let held = Date().timeIntervalSince(start) * 1000
        server.openGate(gate)
        _ = try await box.wait()
        let total = Date().timeIntervalSince(start) * 1000
        let timing = try #require(task.metrics.timings.first)
        let ttfb = try #require(timing.ttfbMs)
        let wait = try #require(timing.waitMs)
        #expect(wait >= 200, "wait \(wait) ms is shorter than the server held the head")
        #expect(ttfb >= wait && ttfb <= total, "ttfb \(ttfb) ms outside [\(wait), \(total)] (held \(held) ms)")
        session.finishTasksAndInvalidate()
    }

    @Test func redirectChainGivesOneTransactionPerHop() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let (m, response) = try await metrics(session, "\(server.httpBase)/redirect/2")
        #expect(response?.statusCode == 200)
        #expect(m.transactionMetrics.count == 3)
        #expect(m.redirectCount == 2)
        #expect(m.transactionMetrics.map(\.statusCode) == [302, 302, 200])
        #expect(m.transactionMetrics.map { URL(string: $0.url)!.path } == ["/redirect/2", "/redirect/1", "/redirect/0"])
        // The hops follow each other inside the task's interval, in order, without overlap;
        // what lies between them is the engine asking the delegate (no time bound on a
        // loaded machine, only order).
        let hops = m.transactionMetrics
        let taskStart = m.taskIntervalStart, taskEnd = try #require(m.taskIntervalEnd)
        for (i, hop) in hops.enumerated() {
            let start = try #require(hop.fetchStartDate), end = try #require(hop.responseEndDate)
            #expect(start >= taskStart && end <= taskEnd && start <= end, "hop \(i) inside the task")
            if i > 0 { #expect(start >= hops[i - 1].responseEndDate!, "hop \(i) starts after hop \(i - 1) ends") }
        }
        let hopsMs = m.timings.compactMap(\.totalMs).reduce(0, +)
        #expect(hopsMs <= m.taskDuration! * 1000 + 0.001)
        session.finishTasksAndInvalidate()
    }

    @Test func delegateCanFollowRewriteOrRefuseARedirect() async throws {
        let server = try await TestServer.get()
        // Rewrite: send the second hop somewhere else.
        let rewrite = Recorder()
        rewrite.redirectDecision = { req in
            var r = req
            r.url = URL(string: "\(server.httpBase)/bytes/7")!
            return r
        }
        let s1 = TransferSession(configuration: ephemeralConfig(), delegate: rewrite)
        s1.dataTask(with: url("\(server.httpBase)/redirect/2")).resume()
        try await rewrite.waitForCompletion()
        #expect(rewrite.data.count == 7)
        #expect(rewrite.events.filter { $0.hasPrefix("redirect") }.count == 1)
        // Refuse: the 302 becomes the final response, with its body.
        let refuse = Recorder()
        refuse.redirectDecision = { _ in nil }
        let s2 = TransferSession(configuration: ephemeralConfig(), delegate: refuse)
        s2.dataTask(with: url("\(server.httpBase)/redirect/2")).resume()
        try await refuse.waitForCompletion()
        #expect(refuse.events.first == "redirect 302")
        #expect(refuse.events.contains("response 302"))
        #expect(refuse.error == nil)
        #expect(refuse.state.withLock { $0.metrics?.transactionMetrics.count } == 1)
        s1.finishTasksAndInvalidate()
        s2.finishTasksAndInvalidate()
    }

    @Test func tooManyRedirectsFail() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let box = Box<TransferError?>()
        session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/redirect/21"))) { _, _, e in box.set(e) }.resume()
        #expect(try await box.wait()?.code == .httpTooManyRedirects)
        session.finishTasksAndInvalidate()
    }

    @Test func queuedTaskShowsItsWaitForAConnection() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let session = TransferSession(configuration: ephemeralConfig { $0.httpMaximumConnectionsPerHost = 1 })
        let a = Box<Bool>()
        let b = Box<Bool>()
        // The first request holds the only connection at a gate; the second queues behind it
        // until the gate opens. Its queue time lies between what the test saw on either side.
        let gate = UUID().uuidString
        session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/10?headGate=\(gate)"))) { _, _, _ in a.set(true) }.resume()
        try await server.waitForGate(gate)
        let queued = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/10"))) { _, _, _ in b.set(true) }
        queued.resume()
        // The engine has started it (its fetch start is stamped) while the only connection is
        // held: from here it can only wait.
        try await waitFor("the queued task to start") { queued.metrics.transactionMetrics.first?.fetchStartDate != nil }
        let openedAt = Date()
        server.openGate(gate)
        _ = try await a.wait()
        _ = try await b.wait()
        let doneAt = Date()
        // The queued request cannot have had a connection before the gate opened, and had one
        // by the time it completed: its queue ends inside that window (1 ms for clock rounding).
        let hop = try #require(queued.metrics.transactionMetrics.first)
        let start = try #require(hop.fetchStartDate), end = try #require(hop.queueEndDate)
        #expect(end.timeIntervalSince(openedAt) >= -0.001 && end.timeIntervalSince(doneAt) <= 0.001, "queue ended \(end), gate opened \(openedAt)")
        let q = try #require(queued.metrics.timings.first?.queuedMs)
        #expect(abs(q - end.timeIntervalSince(start) * 1000) < 0.01, "queuedMs is the fetch start → queue end interval")
        session.finishTasksAndInvalidate()
    }

    @Test func liveMetricsShowThePhaseInProgress() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let gate = UUID().uuidString
        let task = session.dataTask(with: url("\(server.httpBase)/bytes/200000?gate=\(gate)&holdAfter=1000"))
        task.resume()
        try await waitUntil { task.metrics.transactionMetrics.first?.currentPhase == .receive }
        server.openGate(gate)
        #expect(task.metrics.transactionMetrics.first?.responseStartDate != nil)
        try await waitUntil { task.state == .completed }
        #expect(task.metrics.transactionMetrics.first?.currentPhase == .done)
        session.finishTasksAndInvalidate()
    }

    @Test func csvAndHARExportOfRealTransfers() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        _ = try await session.data(from: url("\(server.httpBase)/redirect/1?token=s3cret"))
        let csv = TransactionCSV.csv([session.snapshot()].flatMap(\.tasks))
        let rows = try CSVRead.records(csv)
        #expect(rows.count == 3, "header + 2 hops")
        #expect(rows[0].prefix(4) == ["session", "task_id", "task_kind", "hop"])
        #expect(!csv.contains("s3cret"))
        let har = HARExport.harText([session.snapshot()].flatMap(\.tasks), creatorVersion: "test")
        #expect(har.contains("\"entries\""))
        #expect(!har.contains("s3cret"))
        session.finishTasksAndInvalidate()
    }
}
