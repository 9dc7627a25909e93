import Foundation
import LoopbackServer
import TestSupport
import Testing

/// The live controls in the real monitor (DECISIONS 176-178), in tmux at 80 columns: `a`
/// retries a download that failed, `L` limits the session and `+` adds a connection per host,
/// and the header says so.
@Suite(.serialized) struct LiveControlTmuxTests {
    @Test func retryLimitAndConnectionsFromTheKeys() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (server, dir, tmux) = (rig.server, rig.dir, rig.tmux)
        let name = "later-\(UUID().uuidString.prefix(8)).bin"
        let gate = UUID().uuidString
        defer { server.openGate(gate) }
        // 1.1 is a 404 until the file is set; 1.2 holds after 64 KiB, so the session keeps running
        // (an hour of idle time: the 60 s default ended it during a slow wait).
        try await rig.monitor("--request-timeout 3600 -o \(dir) '\(server.httpBase)/files/\(name)' "
                              + "'\(server.httpBase)/bytes/3000000?gate=\(gate)&holdAfter=65536'", width: 80, height: 24)
        try await server.waitForGate(gate)
        var screen = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("404") == true }
        #expect(Tmux.row(screen, "1.1")?.contains("404") == true, "\(screen)")
        server.setFile(name, size: 100_000, seed: 7)
        try await tmux.keys("g")
        try await tmux.keys("a")
        screen = try await tmux.waitFor { Tmux.row($0, "1.3")?.contains("ok") == true }
        #expect(Tmux.row(screen, "1.3")?.contains("ok") == true, "\(screen)")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
        #expect(data == Data(LoopbackServer.body(size: 100_000, seed: 7)))
        // A second retry of the same task is refused with a reason.
        try await tmux.keys("g")
        try await tmux.keys("a")
        screen = try await tmux.waitFor { $0.contains("already being") || $0.contains("nothing to retry") }
        #expect(screen.contains("already being") || screen.contains("nothing to retry"), "\(screen)")

        try await tmux.keys("L")
        screen = try await tmux.waitFor { $0.contains("limit session 1 to") }
        #expect(screen.contains("limit session 1 to"), "\(screen)")
        try await tmux.keys("1", "M", "Enter")
        screen = try await tmux.waitFor { $0.split(separator: "\n").first?.contains("max 1.0 MiB/s") == true }
        let header = String(screen.split(separator: "\n").first ?? "")
        #expect(header.contains("max 1.0 MiB/s 6/host"), "\(screen)")
        try await tmux.keys("+")
        screen = try await tmux.waitFor { $0.split(separator: "\n").first?.contains("7/host") == true }
        #expect(screen.split(separator: "\n").first?.contains("max 1.0 MiB/s 7/host") == true, "\(screen)")
        try await tmux.keys("L")
        try await tmux.keys("x", "Enter")
        screen = try await tmux.waitFor { $0.contains("a rate is bytes per second") }
        #expect(screen.contains("a rate is bytes per second"), "\(screen)")

        server.openGate(gate)
        screen = try await tmux.waitFor { Tmux.row($0, "1.2")?.contains("ok") == true }
        #expect(Tmux.row(screen, "1.2")?.contains("ok") == true, "\(screen)")
        try await tmux.keys("q")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED"), "\(screen)")
    }
}
