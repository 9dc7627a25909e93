import Foundation
import LoopbackServer
import Testing
@testable import TransferKit
@testable import TransferTopCLI
@testable import TransferTopRun

/// The CLI's event path does constant work per event at a fixed stack depth, and a
/// long list streams through the Runner holding only its window. Not timed: these must simply
/// complete, without a crash.
@Suite(.serialized) struct EventPathScaleTests {
    /// 1,000,000 events through the session's observers, the Runner's observer and its event
    /// sink, emitted on a thread with a small stack (the sink used to grow by two thunks per
    /// event and overflowed after ~10,000; any per-event recursion would overflow it too). The
    /// sink counts rather than formats, to keep the suite light; line mode's own sink formats
    /// 200,000 lines in the next test.
    @Test func aMillionEventsThroughTheRunnersSink() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/one"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        var sp = SessionPlan(name: "events")
        sp.kind = .ephemeral
        let runner = Runner(plan: RunPlan(sessions: [sp], outputDirectory: dir), store: nil)
        let lines = Locked(0)
        runner.setEventSink { _, event in
            if case .taskStateChanged = event.kind { lines.withLock { $0 += 1 } }
        }
        let session = runner.makeSession(sp)
        let task = runner.addTask(TaskPlan(kind: .data, url: URL(fileURLWithPath: file)), to: session)
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in runner.whenFinished { c.resume() } }
        lines.withLock { $0 = 0 }
        let count = 1_000_000
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                for _ in 0..<count { session.emit(.taskStateChanged(.running), task: task) }
                c.resume()
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
        #expect(lines.withLock { $0 } == count)
        session.invalidateAndCancel()
    }

    /// Whether to run the 100,000-task case: about a minute of both cores in a debug build,
    /// which starves the suite's remaining timing-sensitive tests when run beside them. Set
    /// `TRANSFERTOP_SCALE_TESTS=1` (alone: `swift test --filter EventPathScaleTests`).
    static let full = ProcessInfo.processInfo.environment["TRANSFERTOP_SCALE_TESTS"] != nil

    /// Tasks against a loopback server through a line-mode Runner: every task ends in the
    /// summary, and the session never holds more than the window. 100,000 with
    /// `TRANSFERTOP_SCALE_TESTS=1`, else 3,000 (still three windows' worth).
    @Test func aHundredThousandTasksStreamThroughTheRunner() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var sp = SessionPlan(name: "many")
        sp.kind = .ephemeral
        let count = Self.full ? 100_000 : 3_000
        sp.tasks = Array(repeating: TaskPlan(kind: .data, url: URL(string: "\(server.httpBase)/bytes/16")!), count: count)
        let runner = Runner(plan: RunPlan(sessions: [sp], outputDirectory: dir), store: nil)
        runner.keepsCompletedTasks = false
        let lines = Locked(0)
        let mostHeld = Locked(0)
        let lineSink = LineMode.sink(runner, color: false) { _ in lines.withLock { $0 += 1 } }
        runner.setEventSink { session, event in
            lineSink(session, event)
            if case .taskStateChanged(.completed) = event.kind, event.taskIdentifier.map({ $0 % 1000 == 0 }) == true {
                let held = session.heldTasks.count
                mostHeld.withLock { $0 = max($0, held) }
            }
        }
        runner.start()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in runner.whenFinished { c.resume() } }
        let all = runner.taskSnapshots()
        // Counts, not arrays: a failure must not print 100,000 snapshots.
        #expect(all.count == count)
        #expect(all.filter(runner.succeeded).count == count)
        #expect(runner.exitStatus() == 0)
        #expect(lines.withLock { $0 } >= 2 * count)  // running and completed, per task
        #expect(mostHeld.withLock { $0 } <= Runner.window + 1)
        #expect(zip(all, 1...count).allSatisfy { $0.taskIdentifier == $1 })
        for s in runner.sessions { s.invalidateAndCancel() }
    }
}
