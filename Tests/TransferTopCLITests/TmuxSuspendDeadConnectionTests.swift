import Foundation
import LoopbackServer
import TestSupport
import Testing

/// In the monitor: `s`, the server closes the idle connection (its send timeout), `r`: the
/// same task completes byte-exact, continued with a range request, with no `R` (DECISIONS 173).
@Suite(.serialized) struct TmuxSuspendDeadConnectionTests {
    @Test func resumeAfterTheServerDroppedTheConnectionCompletesTheSameTask() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (server, dir, tmux) = (rig.server, rig.dir, rig.tmux)
        let size = 900_000
        server.setFile("s.bin", size: size, seed: 8)
        let gate = UUID().uuidString
        try await rig.monitor("-o \(dir) '\(server.httpBase)/files/s.bin?gate=\(gate)&holdAfter=300000'", width: 200, height: 30)
        try await server.waitForGate(gate)
        var screen = try await tmux.waitFor { TmuxTests.done($0) == "293 KiB/879 KiB" }
        #expect(TmuxTests.done(screen) == "293 KiB/879 KiB", "\(screen)")
        try await tmux.keys("s")
        screen = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("suspended") == true }
        #expect(Tmux.row(screen, "1.1")?.contains("suspended") == true, "\(screen)")
        #expect(await server.closeHeldConnections(atGate: gate) == 1)
        server.openGate(gate)
        try await tmux.keys("r")
        screen = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("completed") == true }
        #expect(Tmux.row(screen, "1.1")?.contains("completed") == true, "\(screen)")
        #expect(Tmux.row(screen, "1.1")?.contains("failed") == false, "\(screen)")
        #expect(Tmux.row(screen, "1.2") == nil, "no second task: \(screen)")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/s.bin"))
        #expect(data == Data(LoopbackServer.body(size: size, seed: 8)))
        #expect(server.stats.requests.compactMap { $0.header("Range") } == ["bytes=300000-"])
        try await tmux.keys("q")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
    }
}
