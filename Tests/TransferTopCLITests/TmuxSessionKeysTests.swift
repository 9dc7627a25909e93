import Foundation
import LoopbackServer
import TestSupport
import Testing

/// `N` makes a session and says "press n to add a task to it": `n` then adds to that session,
/// not to the session of the task that was selected before.
@Suite(.serialized) struct TmuxSessionKeysTests {
    @Test func nAfterNAddsToTheNewSession() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (server, dir, tmux) = (rig.server, rig.dir, rig.tmux)
        let gate = UUID().uuidString
        try await rig.monitor("-o \(dir) '\(server.httpBase)/bytes/300000?gate=\(gate)&holdAfter=1000'", width: 120, height: 40)
        try await server.waitForGate(gate)
        _ = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("running") == true }
        try await tmux.keys("N")
        _ = try await tmux.waitFor { $0.contains("created; press n to add a task to it") }
        try await tmux.keys("n")
        try await tmux.keys("-l", "\(server.httpBase)/bytes/10?seed=7")
        try await tmux.keys("Enter")
        let screen = try await tmux.waitFor { Tmux.row($0, "2.1")?.contains("completed") == true }
        #expect(Tmux.row(screen, "1.2") == nil, "\(screen)")
        server.openGate(gate)
        try await tmux.keys("q")
    }
}
