import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

@Suite(.serialized) struct InvalidationTests {
    @Test func finishTasksAndInvalidateLetsTasksFinishThenInvalidates() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let gate = UUID().uuidString
        session.dataTask(with: url("\(server.httpBase)/bytes/100?headGate=\(gate)")).resume()
        session.finishTasksAndInvalidate()
        #expect(session.state == .invalidating)
        try await server.waitForGate(gate)
        #expect(session.state == .invalidating, "waits for the running task")
        server.openGate(gate)
        try await waitUntil { rec.state.withLock { $0.invalidated } }
        #expect(rec.events.last == "didBecomeInvalid")
        #expect(rec.events.contains("complete"))
        #expect(rec.error == nil, "the running task finished normally")
        #expect(session.state == .invalidated)
        #expect(session.delegate == nil, "the delegate is released after didBecomeInvalid")
    }

    @Test func invalidateAndCancelCancelsRunningTasks() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let gate = UUID().uuidString
        session.dataTask(with: url("\(server.httpBase)/bytes/10?headGate=\(gate)")).resume()
        try await server.waitForGate(gate)
        session.invalidateAndCancel()
        try await waitUntil { rec.state.withLock { $0.invalidated } }
        #expect(rec.error?.code == .cancelled)
        #expect(rec.events.last == "didBecomeInvalid")
    }

    @Test func invalidateAndCancelAfterFinishTasksCancelsTheRest() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let gate = UUID().uuidString
        session.dataTask(with: url("\(server.httpBase)/bytes/10?headGate=\(gate)")).resume()
        session.finishTasksAndInvalidate()
        try await server.waitForGate(gate)
        session.invalidateAndCancel()
        try await waitUntil { rec.state.withLock { $0.invalidated } }
        #expect(rec.error?.code == .cancelled)
    }

    @Test func newTasksAreRefusedWithAClearError() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        session.finishTasksAndInvalidate()
        let box = Box<TransferError?>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/1"))) { _, _, e in box.set(e) }
        task.resume()
        #expect(try await box.wait()?.code == .sessionInvalidated)
    }

    @Test func invalidationLeavesNoThreadBehind() async throws {
        let server = try await TestServer.get()
        var names: [String] = []
        for _ in 0..<5 {
            let rec = Recorder()
            let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
            _ = try await session.data(from: url("\(server.httpBase)/bytes/10"))
            let name = TransferEngine.threadName(session.sessionID)
            names.append(name)
            try await waitUntil("a thread named \(name)") { threadNames().contains(name) }
            session.finishTasksAndInvalidate()
            try await waitUntil { rec.state.withLock { $0.invalidated } }
        }
        // Each session ran a transfer thread; none survives invalidation (it is joined). Other
        // suites' sessions run meanwhile, so threads are told apart by name, not counted.
        // The engine signals shutdown from its last lines: the thread itself ends a moment
        // after didBecomeInvalid, so wait for the kernel to see every one gone.
        let all = names
        try await waitUntil("the transfer threads to end") { all.allSatisfy { !threadNames().contains($0) } }
    }
}

/// The names (`comm`) of this process's threads.
func threadNames() -> Set<String> {
    let dir = "/proc/self/task"
    let ids = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
    return Set(ids.compactMap { try? String(contentsOfFile: "\(dir)/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
}
