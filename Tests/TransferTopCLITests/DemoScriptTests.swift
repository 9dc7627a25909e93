import Foundation
import LoopbackServer
import TestSupport
import TransferModel
import Testing
@testable import TransferTopCLI
@testable import TransferTopRun

/// The demo's self-driving suspend and resume name the task as the monitor's table does
/// (session.task): in a plan of several sessions, `task 1` would be any session's first.
@Suite struct DemoScriptTests {
    @Test func theScriptsNoticesNameTheSessionAndTheTask() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gate = UUID().uuidString
        var first = SessionPlan(name: "first")
        first.kind = .ephemeral
        first.tasks = [TaskPlan(kind: .download, url: URL(string: "\(server.httpBase)/bytes/1000")!)]
        var second = SessionPlan(name: "second")
        second.kind = .ephemeral
        second.requestTimeout = 3600  // held at the gate until the notices are in (DECISIONS 167)
        var scripted = TaskPlan(kind: .download, url: URL(string: "\(server.httpBase)/bytes/300000?gate=\(gate)&holdAfter=100000")!)
        scripted.suspendAfter = 0
        scripted.resumeAfter = 0
        second.tasks = [scripted]
        let runner = Runner(plan: RunPlan(sessions: [first, second], outputDirectory: dir), store: nil)
        runner.start()
        let id = TaskID(session: runner.sessions[1].sessionID, task: 1)
        let notices = Locked<[String]>([])
        try await waitFor("the script's two notices") {
            notices.withLock { $0 += runner.takeNotices(); return $0.count >= 2 }
        }
        #expect(notices.withLock { $0 } == ["demo: suspended task \(id); resuming in 0 s", "demo: resumed task \(id)"])
        server.openGate(gate)
        try await waitFor("the scripted download") { runner.task(id)?.state == .completed }
        #expect(runner.task(id)?.error == nil)
    }
}
