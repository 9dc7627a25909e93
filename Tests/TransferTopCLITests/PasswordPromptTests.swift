import Foundation
import LoopbackServer
import Testing

/// `-u USER` without a password asks on the terminal, without echo (SPEC S12), in a real
/// terminal (tmux): the typed password reaches the server and never the screen.
@Suite(.serialized, .enabled(if: Tmux.available)) struct PasswordPromptTests {
    @Test func promptsWithoutEchoAndUsesTheAnswer() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (binary, server, dir, tmux) = (rig.binary, rig.server, rig.dir, rig.tmux)
        let command = "cd \(dir) && env TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config "
            + "\(binary) --no-tui -o \(dir)/out -u \(AuthRoutes.user) '\(server.httpBase)/basic'"
            + "; echo TT-EXITED $?; sleep 60"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "160", "-y", "30", command])
        var screen = try await tmux.waitFor { $0.contains("Enter host password for user '\(AuthRoutes.user)'") }
        #expect(screen.contains("Enter host password"), "\(screen)")
        try await tmux.keys("-l", AuthRoutes.password)
        try await tmux.keys("Enter")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        #expect(!screen.contains(AuthRoutes.password), "\(screen)")
        #expect(server.stats.requests.contains { $0.header("Authorization")?.hasPrefix("Basic ") == true })
    }
}
