import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// A download suspended mid-body whose connection the server closes meanwhile (its send
/// timeout) continues by itself on resume, as Apple's download tasks do: the same task asks for
/// the rest with `Range`, and the delegate sees no failure (DECISIONS 173).
@Suite(.serialized) struct ResumeAfterDeadConnectionTests {
    /// A download of a new 3,000,000-byte file (`seed`) on a clocked session with a recorder,
    /// held at a gate after 1,000,000 bytes, suspended once the client has them, and its
    /// connection then closed by the server.
    private struct Dropped {
        static let size = 3_000_000, held = 1_000_000
        let server: LoopbackServer, name: String, rec: Recorder, session: TransferSession, task: TransferDownloadTask
    }

    private func droppedWhileSuspended(_ prefix: String, seed: UInt8, query: String = "", h2: Bool = false) async throws -> Dropped {
        let server = try await TestServer.get()
        let name = "\(prefix)-\(UUID().uuidString).bin"
        server.setFile(name, size: Dropped.size, seed: seed)
        let rec = Recorder()
        let clock = TestEngineClock()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = h2 }, delegate: rec, clock: clock)
        let gate = UUID().uuidString
        let base = h2 ? server.httpsBase : server.httpBase
        let task = session.downloadTask(with: url("\(base)/files/\(name)?gate=\(gate)&holdAfter=\(Dropped.held)\(query)"))
        task.resume()
        try await server.waitForGate(gate)
        try await waitUntil("\(Dropped.held) bytes at the client") { task.countOfBytesReceived == Int64(Dropped.held) }
        task.suspend()
        try await clock.advance(session, to: 0)  // the transfer thread has paused the handle
        #expect(await server.closeHeldConnections(atGate: gate) == 1)
        // The continuation passes the gate; the closed response never goes on.
        server.openGate(gate)
        return Dropped(server: server, name: name, rec: rec, session: session, task: task)
    }

    private func fileRequests(_ server: LoopbackServer, _ name: String) -> [RequestRecord] {
        server.stats.requests.filter { $0.path.hasPrefix("/files/\(name)?") }
    }

    /// HTTP/1.1 in the clear, and HTTP/2 over TLS (a paused stream of a connection that closes).
    @Test(arguments: [false, true])
    func aResumeThatMeetsAClosedConnectionContinuesFromWhereTheFileGotTo(h2: Bool) async throws {
        let d = try await droppedWhileSuspended("dead", seed: 11, h2: h2)
        let (server, name, rec, session, task) = (d.server, d.name, d.rec, d.session, d.task)
        let (size, held) = (Dropped.size, Dropped.held)
        let identifier = task.taskIdentifier
        task.resume()
        try await rec.waitForCompletion()

        #expect(rec.error == nil, "no failure reaches the delegate: \(String(describing: rec.error))")
        #expect(rec.events.filter { $0 == "complete" }.count == 1)
        #expect(task.taskIdentifier == identifier && task.state == .completed && task.error == nil)
        let file = rec.state.withLock { $0.downloaded }
        #expect(file.map(sha256) == sha256(expectedBody(size, seed: 11)))
        // The server saw the first request, then one asking for the rest from the file's end.
        let requests = fileRequests(server, name)
        #expect(requests.count == 2)
        let range = requests.last?.headers.first { $0.name.lowercased() == "range" }?.value
        #expect(range == "bytes=\(held)-")
        #expect(requests.last?.headers.contains { $0.name.lowercased() == "if-range" } == true)
        // The delegate hears where the download continued, as for resume data.
        #expect(rec.state.withLock { $0.resumedAt } == [Int64(held)])
        #expect(task.countOfBytesReceived == Int64(size) && task.countOfBytesExpectedToReceive == Int64(size))
        // One transaction per request: the dead connection's hop, then the range.
        let hops = try #require(rec.state.withLock { $0.metrics }).transactionMetrics
        #expect(hops.count == 2)
        #expect(hops.first?.errorDescription != nil)
        #expect(hops.last?.statusCode == 206)
        #expect(hops.last?.requestHeaders.first(named: "Range") == "bytes=\(held)-")
        #expect(hops.last?.errorDescription == nil)
        #expect(hops.allSatisfy { $0.networkProtocolName == (h2 ? "h2" : "http/1.1") })
        session.finishTasksAndInvalidate()
    }

    @Test func aResourceChangedDuringTheSuspendIsFetchedWholeNeverSpliced() async throws {
        let d = try await droppedWhileSuspended("dead-changed", seed: 14)
        let (server, name, rec, session, task) = (d.server, d.name, d.rec, d.session, d.task)
        // A new version: the continuation's If-Range no longer matches, so the answer is the
        // whole new resource (200), written from offset 0.
        server.changeFile(name, newSeed: 15)
        task.resume()
        try await rec.waitForCompletion()
        #expect(rec.error == nil, "\(String(describing: rec.error))")
        #expect(rec.state.withLock { $0.downloaded }.map(sha256) == sha256(expectedBody(Dropped.size, seed: 15)))
        #expect(rec.state.withLock { $0.resumedAt } == [0])
        #expect(fileRequests(server, name).count == 2)
        #expect(task.response?.statusCode == 200)
        session.finishTasksAndInvalidate()
    }

    @Test func withoutAValidatorTheResumeFailsAsBefore() async throws {
        let d = try await droppedWhileSuspended("dead-novalidator", seed: 12, query: "&noValidator=1")
        let (server, name, rec, session, task) = (d.server, d.name, d.rec, d.session, d.task)
        task.resume()
        try await rec.waitForCompletion()
        #expect(rec.error?.code == .networkConnectionLost)
        #expect(rec.error?.resumeData == nil)
        #expect(fileRequests(server, name).count == 1)
        #expect(rec.state.withLock { $0.resumedAt }.isEmpty)
        session.finishTasksAndInvalidate()
    }

    @Test func aDownloadThatWasNeverSuspendedFailsAsBefore() async throws {
        // A connection lost while running is the network's fault, not a suspend's: the task
        // fails with resume data for the caller to use.
        let server = try await TestServer.get()
        let name = "dead-running-\(UUID().uuidString).bin"
        server.setFile(name, size: 2_000_000, seed: 13)
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: rec)
        let gate = UUID().uuidString
        let task = session.downloadTask(with: url("\(server.httpBase)/files/\(name)?gate=\(gate)&holdAfter=500000"))
        task.resume()
        try await server.waitForGate(gate)
        try await waitUntil("500000 bytes at the client") { task.countOfBytesReceived == 500_000 }
        #expect(await server.closeHeldConnections(atGate: gate) == 1)
        try await rec.waitForCompletion()
        #expect(rec.error?.code == .networkConnectionLost)
        #expect(rec.error?.resumeData != nil)
        #expect(fileRequests(server, name).count == 1)
        session.finishTasksAndInvalidate()
    }
}
