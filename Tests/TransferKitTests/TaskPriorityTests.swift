import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// URLSessionTask.priority: tasks waiting for the per-host connection limit start highest
/// first, in creation order among equals (DECISIONS 65).
@Suite struct TaskPriorityTests {
    @Test func priorityConstantsAreApples() {
        #expect(TransferTask.defaultPriority == 0.5)
        #expect(TransferTask.lowPriority == 0.25)
        #expect(TransferTask.highPriority == 0.75)
    }

    @Test func priorityDefaultsAndClamps() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url("\(server.httpBase)/bytes/1"))
        #expect(task.priority == 0.5)
        task.priority = 2
        #expect(task.priority == 1)
        task.priority = -1
        #expect(task.priority == 0)
    }

    @Test func waitingTasksStartHighestFirstFIFOAmongEquals() async throws {
        let server = try await TestServer.get()
        let tag = UUID().uuidString.prefix(8)
        let gate = "prio-\(tag)"
        let session = TransferSession(configuration: ephemeralConfig { $0.httpMaximumConnectionsPerHost = 1 })
        defer { session.finishTasksAndInvalidate() }
        let done = Locked(0)
        func start(_ name: String, _ priority: Float, gated: Bool = false) {
            let query = "tag=\(tag)&name=\(name)" + (gated ? "&headGate=\(gate)" : "")
            let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/1?\(query)"))) { _, _, _ in
                done.withLock { $0 += 1 }
            }
            task.priority = priority
            task.resume()
        }
        // The first request holds the host's only connection at the server's gate.
        start("first", TransferTask.defaultPriority, gated: true)
        try await server.waitForGate(gate)
        start("low1", TransferTask.lowPriority)
        start("default1", TransferTask.defaultPriority)
        start("high1", TransferTask.highPriority)
        start("low2", TransferTask.lowPriority)
        start("default2", TransferTask.defaultPriority)
        start("high2", TransferTask.highPriority)
        // The engine runs commands in order: once a later task to another host (localhost is a
        // different host key than 127.0.0.1) has finished, the six above are queued.
        _ = try await session.data(from: url("http://localhost:\(server.httpPort)/bytes/1?tag=\(tag)&name=marker"))
        server.openGate(gate)
        try await waitUntil("seven tasks done") { done.withLock { $0 } == 7 }
        let seen = server.stats.requests
            .filter { $0.path.contains("tag=\(tag)") && !$0.path.contains("marker") }
            .compactMap { $0.path.components(separatedBy: "name=").last?.components(separatedBy: "&").first }
        #expect(seen == ["first", "high1", "high2", "default1", "default2", "low1", "low2"])
    }
}
