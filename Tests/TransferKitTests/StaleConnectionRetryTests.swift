import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// A request that meets a kept-alive connection the server has closed, before any of its
/// response, is sent once more on a new connection when it is idempotent (DECISIONS 179); the
/// delegate sees one success, and the metrics show both attempts.
@Suite struct StaleConnectionRetryTests {
    /// A first request leaves a kept-alive connection; the second goes out on it and is held
    /// at a gate before its head, and the server closes that connection. Returns the task, its
    /// recorder, the gate and the connection the first request used.
    private func requestOnAClosedConnection(_ server: LoopbackServer, h2: Bool, method: String = "GET")
        async throws -> (TransferTask, Recorder, TransferSession, String, Int) {
        let base = h2 ? server.httpsBase : server.httpBase
        let tag = UUID().uuidString
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.allowsHTTP2 = h2
            $0.httpMaximumConnectionsPerHost = 1
        }, delegate: rec)
        _ = try await session.data(from: url("\(base)/bytes/10?seed=1&first=\(tag)"))
        let first = try #require(server.stats.requests.first { $0.path.contains("first=\(tag)") })

        let gate = "stale-" + tag
        var request = TransferRequest(url: url("\(base)/bytes/10?seed=2&headGate=\(gate)"), httpMethod: method)
        if method != "GET" { request.httpBody = Data("x".utf8) }
        let task = session.dataTask(with: request)
        task.resume()
        try await server.waitForGate(gate)
        #expect(await server.closeHeldConnections(atGate: gate) == 1)
        return (task, rec, session, gate, first.connectionID)
    }

    private func gated(_ server: LoopbackServer, _ gate: String) -> [RequestRecord] {
        server.stats.requests.filter { $0.path.contains("headGate=\(gate)") }
    }

    @Test(arguments: [false, true])
    func anIdempotentRequestIsSentAgainOnANewConnection(h2: Bool) async throws {
        let server = try await TestServer.get()
        let (task, rec, session, gate, firstConnection) = try await requestOnAClosedConnection(server, h2: h2)
        // The same request arrives again, on a connection of its own; it is answered.
        try await server.waitForGate(gate, arrivals: 2)
        server.openGate(gate)
        try await rec.waitForCompletion()
        #expect(rec.error == nil, "\(String(describing: rec.error))")
        #expect(rec.data == expectedBody(10, seed: 2))
        let arrivals = gated(server, gate)
        #expect(arrivals.count == 2)
        #expect(arrivals.first?.connectionID == firstConnection, "the first attempt went out on the kept-alive connection")
        #expect(arrivals.last?.connectionID != firstConnection)
        let hops = try #require(rec.state.withLock { $0.metrics }).transactionMetrics
        if h2 {
            // The engine sent it again (libcurl fails the stream): both attempts are in the
            // metrics, the first on the reused connection, failed; the second on a new one.
            #expect(hops.count == 2)
            #expect(hops.first?.isReusedConnection == true && hops.first?.statusCode == nil && hops.first?.errorDescription != nil)
        } else {
            // libcurl sent it again itself, within the one hop.
            #expect(hops.count == 1)
        }
        #expect(hops.last?.isReusedConnection == false && hops.last?.statusCode == 200)
        #expect(task.state == .completed)
        session.finishTasksAndInvalidate()
    }

    /// Over h2, where the resend is the engine's: a POST is not idempotent, and fails. (libcurl
    /// sends an HTTP/1.1 POST again itself, as curl does.)
    @Test func anH2PostIsNotSentTwice() async throws {
        let server = try await TestServer.get()
        let (_, rec, session, gate, _) = try await requestOnAClosedConnection(server, h2: true, method: "POST")
        try await rec.waitForCompletion()
        #expect(rec.error?.code == .networkConnectionLost, "\(String(describing: rec.error))")
        #expect(gated(server, gate).count == 1)
        server.openGate(gate)
        session.finishTasksAndInvalidate()
    }

    /// A PUT's body is sent twice over the wire, and counted once: the task's bytes sent, and
    /// the answered hop's, are the body's size.
    @Test func aResentBodyIsCountedOnce() async throws {
        let server = try await TestServer.get()
        let (task, rec, session, gate, _) = try await requestOnAClosedConnection(server, h2: true, method: "PUT")
        try await server.waitForGate(gate, arrivals: 2)
        server.openGate(gate)
        try await rec.waitForCompletion()
        #expect(rec.error == nil, "\(String(describing: rec.error))")
        #expect(task.countOfBytesSent == 1)
        let hops = try #require(rec.state.withLock { $0.metrics }).transactionMetrics
        #expect(hops.map(\.countOfRequestBodyBytesSent) == [1, 1])
        session.finishTasksAndInvalidate()
    }

    /// A download made from resume data whose range request is cut and sent again still stands
    /// for that resume data until it is answered: cancelled then, it gives the resume data back
    /// and keeps the partial file.
    @Test func aResentRangeRequestKeepsItsResumeData() async throws {
        let server = try await TestServer.get()
        let name = "stale-resume-\(UUID().uuidString).bin"
        server.setFile(name, size: 200_000, seed: 5)
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.httpMaximumConnectionsPerHost = 1 }, delegate: rec)
        let bodyGate = UUID().uuidString
        let first = session.downloadTask(with: url("\(server.httpsBase)/files/\(name)?gate=\(bodyGate)&holdAfter=50000"))
        first.resume()
        try await server.waitForGate(bodyGate)
        try await waitUntil("50000 bytes at the client") { first.countOfBytesReceived == 50_000 }
        let cancelled = Box<Data?>()
        first.cancel(byProducingResumeData: { cancelled.set($0) })
        var resume = try ResumeData(decoding: try #require(try await cancelled.wait()))
        #expect(resume.bytesReceived == 50_000)
        // The range request goes out on the kept-alive h2 connection and is held before its head.
        let headGate = "stale-" + UUID().uuidString
        resume.url = "\(server.httpsBase)/files/\(name)?headGate=\(headGate)"
        let second = session.downloadTask(withResumeData: resume.encoded())
        second.resume()
        try await server.waitForGate(headGate)
        #expect(await server.closeHeldConnections(atGate: headGate) == 1)
        try await server.waitForGate(headGate, arrivals: 2)
        let again = Box<Data?>()
        second.cancel(byProducingResumeData: { again.set($0) })
        let kept = try ResumeData(decoding: try #require(try await again.wait(), "resume data after the resend"))
        #expect(kept.bytesReceived == 50_000)
        #expect(FileManager.default.fileExists(atPath: kept.partialFilePath))
        server.openGate(headGate)
        server.openGate(bodyGate)
        session.finishTasksAndInvalidate()
    }

    @Test func theMachineResendsOnceAndOnlyWhatQualifies() {
        let ok = StaleConnectionRetry.Failure(curlCode: 52, isHTTP: true, reusedConnection: true, responseStarted: false,
                                              method: "get", replayableBody: true, failedByConnection: true)
        var m = StaleConnectionRetry()
        #expect(m.hopFailed(ok) == .sendAgain && m.state == .resending)
        m.hopEnded()
        #expect(m.state == .spent)
        #expect(m.hopFailed(ok) == .fail, "once per task")
        var changed: [StaleConnectionRetry.Failure] = []
        for change: (inout StaleConnectionRetry.Failure) -> Void in [
            { $0.curlCode = 28 }, { $0.isHTTP = false }, { $0.reusedConnection = false }, { $0.responseStarted = true },
            { $0.method = "POST" }, { $0.method = "PATCH" }, { $0.replayableBody = false }, { $0.failedByConnection = false },
        ] {
            var f = ok
            change(&f)
            changed.append(f)
        }
        for f in changed {
            var fresh = StaleConnectionRetry()
            #expect(fresh.hopFailed(f) == .fail, "\(f)")
            #expect(fresh.state == .unused)
        }
        for code in [16, 18, 55, 56, 92] {
            var f = ok
            f.curlCode = code
            var fresh = StaleConnectionRetry()
            #expect(fresh.hopFailed(f) == .sendAgain, "\(code)")
        }
    }
}
