import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// `waitsForConnectivity` and `taskIsWaitingForConnectivity` (DECISIONS 66).
@Suite struct WaitsForConnectivityTests {
    /// A data delegate that records the connectivity callbacks and the outcome.
    final class Watcher: TransferDataDelegate, @unchecked Sendable {
        // @unchecked: mutable state is behind locks (Box, Locked).
        let waiting = Box<Void>()
        let waitingCalls = Locked(0)
        let done = Box<TransferError?>()
        let body = Locked(Data())
        func session(_ session: TransferSession, taskIsWaitingForConnectivity task: TransferTask) {
            waitingCalls.withLock { $0 += 1 }
            waiting.set(())
        }
        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {
            body.withLock { $0.append(data) }
        }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            done.set(error)
        }
    }

    @Test func offByDefaultARefusedConnectionFailsAtOnce() async throws {
        #expect(TransferConfiguration.default.waitsForConnectivity == false)
        let (port, release) = try reservedRefusedPort()
        defer { release() }
        let watcher = Watcher()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: watcher)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: url("http://127.0.0.1:\(port)/bytes/10")).resume()
        let error = try await watcher.done.wait()
        #expect(error?.code == .cannotConnectToHost)
        #expect(watcher.waitingCalls.withLock { $0 } == 0)
    }

    @Test func waitsOnceThenConnectsWhenTheServerListens() async throws {
        let (port, release) = try reservedRefusedPort()
        defer { release() }
        let watcher = Watcher()
        let session = TransferSession(configuration: ephemeralConfig { $0.waitsForConnectivity = true }, delegate: watcher)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: url("http://127.0.0.1:\(port)/bytes/10?seed=4"))
        task.resume()
        try await watcher.waiting.wait()
        // Only now does anything listen on the port.
        let server = try await LoopbackServer.start(httpPort: port)
        let error = try await watcher.done.wait()
        try await server.shutdown()
        #expect(error == nil)
        #expect(watcher.body.withLock { $0 } == expectedBody(10, seed: 4))
        #expect(watcher.waitingCalls.withLock { $0 } == 1, "called once, however many attempts failed")
        #expect(task.response?.statusCode == 200)
        let transactions = task.metrics.transactionMetrics
        #expect(transactions.count >= 2, "each attempt is a transaction")
        #expect(transactions.last?.statusCode == 200)
    }

    @Test func theResourceTimeoutEndsTheWaitWithTimedOut() async throws {
        let (port, release) = try reservedRefusedPort()
        defer { release() }
        let watcher = Watcher()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.waitsForConnectivity = true
            $0.timeoutIntervalForResource = 0.4
        }, delegate: watcher)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: url("http://127.0.0.1:\(port)/bytes/10")).resume()
        let error = try await watcher.done.wait()
        #expect(error?.code == .timedOut)
        #expect(error?.urlError.code == .timedOut)
        #expect(watcher.waitingCalls.withLock { $0 } == 1)
    }

    @Test func cancelWhileWaitingEndsTheTask() async throws {
        let (port, release) = try reservedRefusedPort()
        defer { release() }
        let watcher = Watcher()
        let session = TransferSession(configuration: ephemeralConfig { $0.waitsForConnectivity = true }, delegate: watcher)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: url("http://127.0.0.1:\(port)/bytes/10"))
        task.resume()
        try await watcher.waiting.wait()
        task.cancel()
        let error = try await watcher.done.wait()
        #expect(error?.code == .cancelled)
    }
}
