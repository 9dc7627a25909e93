import Foundation
import Synchronization
import LoopbackServer
import Testing
@testable import TransferKit

/// `deliveryCoalescingInterval` (DECISIONS 142): callbacks nothing waits for may wait in the
/// transfer thread's outbox. The sessions here may hold them for an hour, so a test that
/// finishes at all proves that what must not wait did not: an answer the engine waits for,
/// data, and the last callbacks once no transfer is left.
@Suite struct DeliveryCoalescingTests {
    static func holdingForAnHour(_ change: (inout TransferConfiguration) -> Void = { _ in }) -> TransferConfiguration {
        ephemeralConfig {
            $0.deliveryCoalescingInterval = 3600
            change(&$0)
        }
    }

    /// Each task's callbacks, in the order the delegate saw them.
    final class PerTask: TransferDownloadDelegate, @unchecked Sendable {
        // @unchecked: all mutable state is behind `events`.
        let events = Locked<[Int: [String]]>([:])
        private func log(_ task: TransferTask, _ e: String) { events.withLock { $0[task.taskIdentifier, default: []].append(e) } }
        var completed: Int { events.withLock { $0.values.filter { $0.last == "complete" }.count } }

        func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingTo location: URL) {
            log(downloadTask, "file \(FileManager.default.contents(atPath: location.path)?.count ?? -1)")
        }
        func session(_ session: TransferSession, task: TransferTask, didFinishCollecting metrics: TaskMetrics) {
            log(task, "metrics")
        }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            log(task, error.map { "error \($0.code)" } ?? "complete")
        }
    }

    @Test func everyTaskCompletesInOrderThoughCompletionsMayWait() async throws {
        let server = try await TestServer.get()
        let delegate = PerTask()
        let session = TransferSession(configuration: Self.holdingForAnHour { $0.allowsHTTP2 = false }, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        // More than the outbox keeps (`DeliveryOutbox.cap`) and more than a window of connections: the
        // batches go out full, and the last one when no transfer is left.
        var sizes: [Int: Int] = [:]
        for i in 0..<300 {
            let task = session.downloadTask(with: url("\(server.httpBase)/bytes/\(100 + i)"))
            sizes[task.taskIdentifier] = 100 + i
            task.resume()
        }
        try await waitUntil("300 completions") { delegate.completed == 300 }
        let events = delegate.events.withLock { $0 }
        for (id, size) in sizes {
            #expect(events[id] == ["file \(size)", "metrics", "complete"], "task \(id)")
        }
    }

    @Test func aFullOutboxGoesOutWhileATransferStillRuns() async throws {
        let server = try await TestServer.get()
        let delegate = PerTask()
        // An hour of idle time too: the held download waits at the gate until this task opens it,
        // and in a loaded suite this task can wait its turn for longer than the 60 s default
        // (Tests/TestSupport/OffPool.swift); timed out, it would end with an error, not "complete".
        let session = TransferSession(configuration: Self.holdingForAnHour {
            $0.allowsHTTP2 = false
            $0.timeoutIntervalForRequest = 3600
        }, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        // One download held at a server gate keeps a transfer running, so only the outbox's
        // cap (`DeliveryOutbox.cap` blocks) can send the others' callbacks within the hour.
        let gate = UUID().uuidString
        defer { server.openGate(gate) }
        session.downloadTask(with: url("\(server.httpBase)/bytes/200000?gate=\(gate)&holdAfter=1000")).resume()
        try await server.waitForGate(gate)
        for i in 0..<300 { session.downloadTask(with: url("\(server.httpBase)/bytes/\(100 + i)")).resume() }
        try await waitUntil("100 completions with a transfer still running") { delegate.completed >= 100 }
        // Held, not only delivered: a flush per loop turn would make one for every six
        // completions at least (six connections); full outboxes carry dozens each.
        let completed = delegate.completed
        let flushes = session.engine.outbox.flushes.load(ordering: .relaxed)
        #expect(flushes * 6 < completed, "\(flushes) flushes for \(completed) completions")
        server.openGate(gate)
        try await waitUntil("every completion") { delegate.completed == 301 }
    }

    @Test func answersTheEngineWaitsForAndDataAreNotHeld() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: Self.holdingForAnHour(), delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        // A redirect and a response disposition (both answered by the delegate before the
        // transfer goes on), then 1,000 bytes of the body while the server holds the rest:
        // each must reach the delegate while the transfer is still running.
        let gate = UUID().uuidString
        defer { server.openGate(gate) }  // a failure before the gate opens leaves no stalled connection
        let target = "/bytes/200000?gate=\(gate)&holdAfter=1000"
        let encoded = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        session.dataTask(with: url("\(server.httpBase)/redirect-to?url=\(encoded)")).resume()
        try await waitUntil("the first 1,000 bytes with the rest held") { rec.data.count >= 1000 }
        #expect(!rec.state.withLock { $0.completed })
        server.openGate(gate)
        try await waitUntil("completion") { rec.state.withLock { $0.completed } }
        #expect(rec.error == nil)
        #expect(rec.data.count == 200_000)
        #expect(rec.events.prefix(3) == ["redirect 302", "response 200", "data"])
    }

    @Test func anAsyncCallIsAnsweredWhileAnotherTransferRuns() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: Self.holdingForAnHour())
        defer { session.finishTasksAndInvalidate() }
        // A download held at a gate keeps a transfer running: a held completion would keep
        // the awaited call below waiting for the hour.
        let gate = UUID().uuidString
        defer { server.openGate(gate) }
        session.downloadTask(with: url("\(server.httpBase)/bytes/200000?gate=\(gate)&holdAfter=1000")).resume()
        try await server.waitForGate(gate)
        let (body, response) = try await session.data(from: url("\(server.httpBase)/bytes/10"))
        #expect(body.count == 10 && response.statusCode == 200)
    }

    @Test func theIntervalIsClamped() {
        #expect(DeliveryOutbox.coalescingNanos(0) == 0)
        #expect(DeliveryOutbox.coalescingNanos(-1) == 0)
        #expect(DeliveryOutbox.coalescingNanos(.nan) == 0)
        #expect(DeliveryOutbox.coalescingNanos(0.010) == 10_000_000)
        #expect(DeliveryOutbox.coalescingNanos(.infinity) == 3_600_000_000_000)
        #expect(DeliveryOutbox.coalescingNanos(1e300) == 3_600_000_000_000)
    }
}
