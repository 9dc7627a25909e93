import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferModel
@testable import TransferTopCLI
@testable import TransferTopRun

/// What a run reports at its end counts each download once: a task continued with `R` is
/// its continuation, and a task that had already failed is not one the interruption stopped.
@Suite struct RunOutcomeTests {
    static func runner(_ server: LoopbackServer, _ dir: String, _ urls: [String]) -> Runner {
        var sp = SessionPlan(name: "default")
        sp.kind = .ephemeral
        sp.requestTimeout = 3600  // the tests hold downloads at server gates (DECISIONS 167)
        sp.tasks = urls.map { TaskPlan(kind: .download, url: URL(string: $0)!) }
        return Runner(plan: RunPlan(sessions: [sp], outputDirectory: dir + "/out"), store: ResumeStore(directory: dir + "/resume"))
    }

    /// `d` then `R` on a download, and the continuation completes: the run succeeded (exit 0),
    /// though the first task ended cancelled.
    @Test func aDownloadContinuedWithRCountsAsItsContinuation() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        server.setFile("r.bin", size: 300_000, seed: 5)
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let gate = UUID().uuidString
        let runner = Self.runner(server, dir, ["\(server.httpBase)/files/r.bin?gate=\(gate)&holdAfter=100000"])
        runner.start()
        let first = TaskID(session: runner.sessions[0].sessionID, task: 1)
        try await server.waitForGate(gate)
        // The response head and the bytes before the gate at the client: resume data needs them.
        try await waitFor("100,000 bytes at the client") { runner.task(first)?.countOfBytesReceived == 100_000 }
        runner.cancelKeepingResumeData(try #require(runner.task(first)))
        try await waitFor("resume data") { runner.hasResumeData(first) }
        server.openGate(gate)
        #expect(runner.resumeFromResumeData(first) == nil)
        await offPool { runner.wait() }
        let snapshots = runner.taskSnapshots()
        #expect(snapshots.count == 2)
        #expect(snapshots.first { $0.id == first }?.error?.code == .cancelled)
        #expect(runner.exitStatus() == 0)
        #expect(FileManager.default.contents(atPath: dir + "/out/r.bin") == Data(LoopbackServer.body(size: 300_000, seed: 5)))
    }

    /// Interrupted with one download held mid-body and one 404 already finished: one kept its
    /// resume data, the other had failed before; nothing "did not finish and kept nothing".
    @Test func theInterruptionSummarySeparatesFailuresFromWhatItStopped() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let gate = UUID().uuidString
        server.setFile("held.bin", size: 300_000, seed: 2)  // validators: it can keep resume data
        let runner = Self.runner(server, dir, ["\(server.httpBase)/status/404",
                                               "\(server.httpBase)/files/held.bin?gate=\(gate)&holdAfter=100000"])
        runner.start()
        let missing = TaskID(session: runner.sessions[0].sessionID, task: 1)
        try await server.waitForGate(gate)
        let held = TaskID(session: runner.sessions[0].sessionID, task: 2)
        try await waitFor("100,000 bytes at the client") { runner.task(held)?.countOfBytesReceived == 100_000 }
        try await waitFor("the 404") { runner.task(missing)?.state == .completed }
        runner.interrupt()
        await offPool { runner.wait() }
        server.openGate(gate)
        #expect(runner.interruptionMessage() == "interrupted: 1 download(s) kept resume data: run the same command again to continue them; "
                + "1 task(s) had already failed (see their errors)")
        #expect(runner.exitStatus() == 1)
    }
}
