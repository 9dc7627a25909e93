import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// Tasks beyond what a host may have in libcurl's multi wait in the engine's own queue; they
/// must still all run, honour the connection limit, and obey cancel and suspend while waiting.
@Suite struct EngineQueueTests {
    @Test func hundredsOfTasksToOneHostAllCompleteWithinTheLimit() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let session = TransferSession(configuration: ephemeralConfig { $0.httpMaximumConnectionsPerHost = 2 })
        let done = Counter()
        let failures = Counter()
        let n = 300
        var tasks: [TransferDataTask] = []
        for i in 0..<n {
            let t = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/\(100 + i)"))) { d, _, e in
                if e?.code != .cancelled, e != nil || d?.count != 100 + i { _ = failures.increment() }
                _ = done.increment()
            }
            tasks.append(t)
            t.resume()
        }
        // The last tasks are surely still waiting in the engine: cancel one, suspend another.
        tasks[n - 1].cancel()
        tasks[n - 2].suspend()
        // Under a sanitizer beside other suites 300 requests can take minutes: fail on a stall.
        try await waitForCount("completions", reaches: n - 1) { done.value }
        #expect(tasks[n - 2].state == .suspended)
        tasks[n - 2].resume()
        try await waitForCount("the resumed task's completion", reaches: n) { done.value }
        #expect(failures.value == 0)
        #expect(tasks[n - 1].error?.code == .cancelled)
        #expect(tasks[n - 2].error == nil)
        #expect(server.stats.maxConcurrentConnections <= 2)
        session.finishTasksAndInvalidate()
    }
}
