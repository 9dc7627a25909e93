import Foundation
import LoopbackServer
import Testing
@testable import TransferKit
import TransferModel

/// A task hands out its last snapshot again while nothing in it changed (the monitor
/// snapshots 10,000 tasks per frame), and a new one as soon as anything it shows changes.
@Suite struct SnapshotReuseTests {
    @Test func anUnchangedTaskGivesTheSameSnapshotAndAChangedOneANewOne() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url("\(server.httpBase)/bytes/2000?seed=3"))
        let queued = task.snapshot()
        #expect(task.snapshot().sharesStorage(with: queued))
        #expect(session.snapshot().tasks.first?.sharesStorage(with: queued) == true)

        task.taskDescription = "renamed"
        let described = task.snapshot()
        #expect(!described.sharesStorage(with: queued))
        #expect(described.taskDescription == "renamed")

        task.resume()
        try await waitUntil("completed") { task.state == .completed }
        let done = task.snapshot()
        #expect(done.state == .completed && done.countOfBytesReceived == 2000 && done.statusCode == 200)
        #expect(!done.metrics.transactionMetrics.isEmpty)
        #expect(task.snapshot().sharesStorage(with: done))

        task.setOutputPath("/tmp/x")
        let placed = task.snapshot()
        #expect(placed.outputPath == "/tmp/x" && !placed.sharesStorage(with: done))

        session.name = "other"
        #expect(session.snapshot().tasks.first?.sessionName == "other")
    }
}
