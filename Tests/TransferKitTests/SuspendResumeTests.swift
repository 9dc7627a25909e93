import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

@Suite(.serialized) struct SuspendResumeTests {
    /// Suspend mid-flight: no bytes delivered while suspended (client) and the server's writes
    /// stop once socket buffers fill (back-pressure); resume finishes byte-exact.
    @Test func suspendStopsBytesBothSidesAndResumeIsByteExact() async throws {
        // Its own server: the byte counter must see this transfer only.
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let size = 64 * 1024 * 1024
        let first = 2_000_000
        let rec = Recorder()
        // The transfer idles at a gate on purpose: under TSan beside other suites on two cores
        // the test itself can be starved past the 60 s idle time-out (it was: the task ended
        // timed out before suspend), which is not what this test is about.
        let clock = TestEngineClock()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.allowsHTTP2 = false
            $0.timeoutIntervalForRequest = 900
        }, delegate: rec, clock: clock)
        // The server sends 2 MB and holds the rest at a gate: the transfer is surely mid-flight,
        // and every byte the client has when it suspends is known.
        let gate = UUID().uuidString
        let task = session.downloadTask(with: url("\(server.httpBase)/bytes/\(size)?gate=\(gate)&holdAfter=\(first)"))
        task.resume()
        try await server.waitForGate(gate)
        try await waitUntil("the first 2 MB") { task.countOfBytesReceived == Int64(first) }
        task.suspend()
        #expect(task.state == .suspended)
        try await clock.advance(session, to: 0)  // the transfer thread has taken the command
        let stalls = server.stats.backPressureStalls
        server.openGate(gate)
        // The server writes until the kernel's socket buffers are full, then its connection
        // turns unwritable: the event that the client is not reading. It must come long before
        // the body ends, and the client must still have exactly what it had.
        try await waitFor("the server's writes to stall") { server.stats.backPressureStalls > stalls }
        let written = server.stats.bytesWritten
        #expect(written < Int64(size / 2), "the server wrote \(written) bytes to a suspended client")
        #expect(task.countOfBytesReceived == Int64(first), "no bytes delivered while suspended")
        #expect(task.state == .suspended)
        task.resume()
        try await rec.waitForCompletion()
        #expect(rec.error == nil)
        let file = rec.state.withLock { $0.downloaded }
        #expect(file.map(sha256) == sha256(expectedBody(size)))
        session.finishTasksAndInvalidate()
    }

    /// A task suspended before it has a connection (libcurl cannot pause those) still stops,
    /// and resumes to completion.
    @Test func suspendBeforeConnectionThenResume() async throws {
        // Its own server: its connection count must see this task only.
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let clock = TestEngineClock()
        let session = TransferSession(configuration: ephemeralConfig(), clock: clock)
        let box = Box<(Data?, TransferError?)>()
        let gate = UUID().uuidString
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/1000?headGate=\(gate)"))) { d, _, e in
            box.set((d, e))
        }
        task.resume()
        task.suspend()
        #expect(task.state == .suspended)
        try await clock.advance(session, to: 0)  // the transfer thread has taken both commands
        // Whatever reached the server is let through: a suspended task still takes nothing.
        server.openGate(gate)
        // A suspended task that had no answer yet gives up its connection (libcurl cannot pause
        // it): once the server sees no connection, no byte can reach the task any more.
        try await waitFor("the connection to close") { server.stats.activeConnections == 0 }
        try await clock.advance(session, to: 0)
        #expect(box.get == nil)
        #expect(task.countOfBytesReceived == 0)
        task.resume()
        let (data, error) = try await box.wait()
        #expect(error == nil)
        #expect(data.map(sha256) == sha256(expectedBody(1000)))
        session.finishTasksAndInvalidate()
    }

    /// Injected time: an hour suspended fires neither timeout; resumed, the task completes.
    @Test func suspendedTaskIsNotSubjectToTimeouts() async throws {
        let server = try await TestServer.get()
        let clock = TestEngineClock()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.timeoutIntervalForRequest = 60
            $0.timeoutIntervalForResource = 600
        }, clock: clock)
        let box = Box<(Data?, TransferError?)>()
        let gate = UUID().uuidString
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/400000?gate=\(gate)&holdAfter=1000"))) { d, _, e in
            box.set((d, e))
        }
        task.resume()
        try await waitUntil { task.countOfBytesReceived == 1000 }
        task.suspend()
        try await clock.advance(session, to: 3600)
        #expect(box.get == nil, "no timeout fired while suspended")
        try await clock.advance(session, to: 0)
        task.resume()
        server.openGate(gate)
        let (data, error) = try await box.wait()
        #expect(error == nil)
        #expect(data?.count == 400_000)
        session.finishTasksAndInvalidate()
    }
}
