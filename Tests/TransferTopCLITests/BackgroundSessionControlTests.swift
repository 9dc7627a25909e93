import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI
@testable import TransferTopDaemon
@testable import TransferTopRun

/// `control NAME ACTION` without a task number reaches the tasks a runner has not started yet
/// (behind its window of `Runner.window` per session): held by suspend, fed by resume,
/// dropped by cancel (DECISIONS 134). Real daemon, real processes.
@Suite(.serialized) struct BackgroundSessionControlTests {
    typealias Rig = BackgroundDaemonTests.Rig

    func submit(_ rig: Rig, _ name: String, _ server: LoopbackServer, gate: String) async throws -> Int {
        let count = Runner.window + 2
        let list = rig.dir + "/\(name).txt"
        try (1...count).map { "\(server.httpBase)/bytes/10?n=\($0)&headGate=\(gate)" }.joined(separator: "\n")
            .write(toFile: list, atomically: true, encoding: .utf8)
        // The window's tasks wait at the head gate while the test suspends, lists and resumes:
        // `Rig.run` gives them an hour of idle time (the 60 s default ran out under TSan).
        let submit = try await rig.run(["--background", name, "-o", rig.out + "/" + name, "-i", list])
        #expect(submit.status == 0, "\(submit.stderr)")
        try await server.waitForGate(gate)
        return count
    }

    func states(_ rig: Rig, _ name: String) async throws -> [Int64: BackgroundTaskStatus] {
        let status = try await rig.run(["status", name, "--json"])
        let sessions = try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(status.stdout.utf8))
        return Dictionary(uniqueKeysWithValues: (sessions.first?.tasks ?? []).map { ($0.number, $0) })
    }

    @Test func suspendAndResumeOfTheSessionReachTasksNotStartedYet() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let count = try await submit(rig, "q", server, gate: gate)
        let suspend = try await rig.run(["control", "q", "suspend"])
        #expect(suspend.status == 0, "\(suspend.stdout)\(suspend.stderr)")
        let suspended = try await states(rig, "q")
        #expect(suspended.count == count)
        #expect(suspended.values.allSatisfy { $0.state == "suspended" }, "\(suspended.values.filter { $0.state != "suspended" }.map(\.number).sorted().prefix(5))")
        let resume = try await rig.run(["control", "q", "resume"])
        #expect(resume.status == 0, "\(resume.stdout)\(resume.stderr)")
        let resumed = try await states(rig, "q")
        #expect(resumed[Int64(count)]?.state != "suspended" && resumed[Int64(count - 1)]?.state != "suspended")
        server.openGate(gate)
        let wait = try await rig.run(["wait", "q"])
        #expect(wait.status == 0, "\(wait.stdout.suffix(300))\(wait.stderr)")
        #expect(wait.stdout.contains("q: \(count) task(s) completed, 0 failed"), "\(wait.stdout.suffix(300))")
    }

    /// A task's limit set before the daemon started it is kept for its start: the last task
    /// of the list (1 MB, behind a window held at a gate) then runs at 100 KiB/s. Only a lower
    /// bound on its time is checked (a loaded machine only makes it slower); an ended task is
    /// still refused.
    @Test func aLimitForATaskNotStartedYetIsKeptForItsStart() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString, size = 1_000_000
        let count = Runner.window + 1
        let list = rig.dir + "/late.txt"
        let held = (1..<count).map { "\(server.httpBase)/bytes/10?n=\($0)&headGate=\(gate)" }
        try (held + ["\(server.httpBase)/bytes/\(size)?seed=3"]).joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        #expect(try await rig.run(["--background", "late", "-o", rig.out + "/late", "-i", list]).status == 0)
        try await server.waitForGate(gate)
        let limit = try await rig.run(["control", "late", "limit", String(count), "100K"])
        #expect(limit.status == 0, "\(limit.stderr)")
        #expect(limit.stdout.contains("limit late:\(count): 102400 bytes/s (it has not started: kept for its start)"), "\(limit.stdout)")
        let opened = ContinuousClock.now
        server.openGate(gate)
        let wait = try await rig.run(["wait", "late"])
        let elapsed = ContinuousClock.now - opened
        #expect(wait.status == 0, "\(wait.stdout.suffix(300))\(wait.stderr)")
        // All but one 512 KiB receive buffer at 100 KiB/s: over 4 s.
        #expect(elapsed >= .milliseconds(Int(Double(size - 524_288) / 102_400 * 900)), "\(elapsed)")
        let ended = try await rig.run(["control", "late", "limit", String(count), "1M"])
        #expect(ended.status == 1 && ended.stderr.contains("task late:\(count) has ended"), "\(ended.stderr)")
    }

    /// The gate never opens: without the drop, the cancelled window's places would start the
    /// rest, which would wait at the gate forever (and `wait` with them).
    @Test func cancelOfTheSessionEndsTasksNotStartedYet() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let count = try await submit(rig, "c", server, gate: "never-\(UUID().uuidString)")
        let cancel = try await rig.run(["control", "c", "cancel"])
        #expect(cancel.status == 0, "\(cancel.stdout)\(cancel.stderr)")
        let wait = try await rig.run(["wait", "c"])
        #expect(wait.status == 1, "\(wait.stderr)")
        #expect(wait.stdout.contains("c: \(count) task(s) completed, \(count) failed"), "\(wait.stdout.suffix(300))")
        let last = try await states(rig, "c")[Int64(count)]
        #expect(last?.error == "cancelled before it started", "\(String(describing: last))")
    }
}
