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

    /// A loopback port nothing listens on: connecting is refused. The socket stays bound (with
    /// SO_REUSEADDR, never listening) until `release`, so no other test's server can be given
    /// the port in between (under ASan one was: "Address already in use" when this test's own
    /// server came to listen on it); a server with SO_REUSEADDR may still bind and listen.
    private func reservedRefusedPort() throws -> (port: Int, release: () -> Void) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound else { close(fd); throw Timeout(what: "a bound loopback port") }
        return (Int(UInt16(bigEndian: addr.sin_port)), { close(fd) })
    }

    private func refusedPort() throws -> Int {
        let (port, release) = try reservedRefusedPort()
        release()
        return port
    }

    @Test func offByDefaultARefusedConnectionFailsAtOnce() async throws {
        #expect(TransferConfiguration.default.waitsForConnectivity == false)
        let port = try refusedPort()
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
        let port = try refusedPort()
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
