import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferKit

/// The real ncurses path end to end: the monitor in a tmux pane, keys in, screen out.
/// Each run uses its own tmux socket and kills it at the end. Every tmux call runs off the
/// cooperative pool (`offPool`): a blocked pool thread would stall the other suites' waits.
struct Tmux: Sendable {
    let socket = "transfertop-test-\(getpid())-\(UUID().uuidString.prefix(6))"

    /// Runs a tmux command and returns its stdout.
    ///
    /// TestSupport's `ChildProcess`, not Foundation's Process: `new-session` forks the tmux
    /// server, which inherits stdout (so a pipe never reaches end-of-file), and Process on Linux
    /// was seen to leave the exited tmux client a zombie and wait forever. Output goes to a file.
    @discardableResult
    func run(_ args: [String]) async throws -> String {
        try await offPool { try runBlocking(args) }
    }

    private func runBlocking(_ args: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "tmux-out-\(UUID().uuidString)"
        defer { unlink(path) }
        let argv = [try RequiredTool.program("tmux"), "-L", socket, "-f", "/dev/null"] + args
        // Default signal dispositions (ChildProcess's): an ignored SIGHUP inherited from the
        // test runner would keep the pane's shell alive and the server with it after kill-server.
        _ = try ChildProcess.spawn(argv, environment: nil, standardOutput: .path(path)).waitBlocking()
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    func keys(_ k: String...) async throws { try await run(["send-keys", "-t", "t"] + k) }

    /// Ends this test's tmux server (from a `defer`, so on a thread of its own, not awaited):
    /// `kill-server`, then SIGKILL so nothing is left whatever state it was in.
    func kill() {
        let me = self
        Thread {
            let pid = pid_t((try? me.runBlocking(["display-message", "-p", "#{pid}"]))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            _ = try? me.runBlocking(["kill-server"])
            // kill-server returns once the server is told; it is gone for sure after SIGKILL
            // (sent at once: the pane's shell and the program die with it either way).
            if pid > 0 { Foundation.kill(pid, SIGKILL) }
        }.start()
    }

    /// Polls the pane until `check` holds; returns the last capture. The deadline is generous,
    /// TestSupport's `eventDeadline`, which sanitizer runs on two cores need (it expires only on
    /// a bug; the assertion after the call reports the screen).
    ///
    /// The whole loop runs on a thread of its own (`offPool`), not a capture at a time from the
    /// test's task: a status message is on the screen for 8 s, and a cooperative pool starved
    /// for longer (a loaded sanitizer suite) polled only after it had gone.
    /// A wait that expires is recorded at the caller's line, so a failure says which step of a
    /// long test never came even when the assertion after it would pass.
    @discardableResult
    func waitFor(sourceLocation: SourceLocation = #_sourceLocation,
                 _ check: @escaping @Sendable (String) -> Bool) async throws -> String {
        let (screen, matched) = try await offPool { [self] () throws -> (String, Bool) in
            let end = Date().addingTimeInterval(eventDeadline)
            var last = ""
            while Date() < end {
                last = try runBlocking(["capture-pane", "-p", "-t", "t"])
                if check(last) { return (last, true) }
                usleep(50_000)
            }
            return (last, false)
        }
        if !matched {
            Issue.record("the screen did not match within \(Int(eventDeadline)) s; the last capture:\n\(screen)",
                         sourceLocation: sourceLocation)
        }
        return screen
    }

    /// The task-table row of task `id` (e.g. "1.1").
    static func row(_ screen: String, _ id: String) -> String? {
        screen.split(separator: "\n").map(String.init).first { $0.dropFirst().hasPrefix(id + " ") }
    }
}

/// What each monitor-in-tmux test starts with: the built binary, a loopback server of its
/// own, a private directory and a tmux socket of its own; `close()` tears the three down.
struct TmuxRig: Sendable {
    let binary: String
    let server: LoopbackServer
    let dir: String
    let tmux = Tmux()

    static func start() async throws -> TmuxRig {
        let binary = try #require(Binary.path)
        return TmuxRig(binary: binary, server: try await LoopbackServer.start(), dir: try Run.tempDirectory())
    }

    /// Starts `transfertop ARGUMENTS` (a run's, not a subcommand's; shell words, quoted by the
    /// caller) in a new tmux session of `width` x `height`, in `dir` with its own state and config
    /// directories; the pane stays after it exits, showing `TT-EXITED <status>`. The run gets
    /// `--request-timeout 3600` unless ARGUMENTS set one: tests hold its transfers at server gates
    /// while they read the screen and send keys, which a starved machine can stretch past the
    /// 60 s default (DECISIONS 167).
    func monitor(_ arguments: String, width: Int, height: Int) async throws {
        let patient = arguments.contains("--request-timeout") ? "" : "--request-timeout 3600 "
        let command = "cd \(dir) && env TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config "
            + "\(binary) \(patient)\(arguments); echo TT-EXITED $?; sleep 3600"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", String(width), "-y", String(height), command])
    }

    func close() {
        tmux.kill()
        try? FileManager.default.removeItem(atPath: dir)
        let server = self.server
        Task { try? await server.shutdown() }
    }
}

@Suite(.serialized) struct TmuxTests {
    @Test func monitorKeysResizeExportAndQuit() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (server, dir, tmux) = (rig.server, rig.dir, rig.tmux)
        // 100 MB held at two gates: after 1 MB (opened once the task is suspended) and after
        // 50 MB (never opened, so the task is still running when q is pressed).
        let (first, last) = (UUID().uuidString, UUID().uuidString)
        let url = "\(server.httpBase)/bytes/100000000?gate=\(first),\(last)&holdAfter=1000000,50000000"
        try await rig.monitor("-o \(dir) '\(url)'", width: 200, height: 30)

        try await server.waitForGate(first)
        var screen = try await tmux.waitFor { Self.done($0)?.hasPrefix("977 KiB/") == true }
        #expect(Tmux.row(screen, "1.1")?.contains("running") == true, "\(screen)")

        // s: suspended. Then the server may send the rest: it stalls once the socket buffers
        // are full, because the suspended client does not read (a server-side event).
        try await tmux.keys("s")
        screen = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("suspended") == true }
        #expect(Tmux.row(screen, "1.1")?.contains("suspended") == true, "\(screen)")
        let stalls = server.stats.backPressureStalls
        server.openGate(first)
        try await waitFor("the server's writes to stall") { server.stats.backPressureStalls > stalls }
        // The byte count stays put across later frames: a second s (answered on the status
        // line) and a resize (redrawn at the new width) are both drawn from fresh snapshots.
        try await tmux.keys("s")
        screen = try await tmux.waitFor { $0.contains("already suspended") }
        let before = Self.done(screen)
        try await tmux.run(["resize-window", "-t", "t", "-x", "201", "-y", "30"])
        screen = try await tmux.waitFor { $0.split(separator: "\n").contains { $0.count == 201 } }
        let after = Self.done(screen)
        #expect(before != nil && before == after, "\(String(describing: before)) then \(String(describing: after))")
        try await tmux.run(["resize-window", "-t", "t", "-x", "200", "-y", "30"])

        // r: running again, bytes move.
        try await tmux.keys("r")
        screen = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("running") == true && Self.done($0) != after }
        #expect(Tmux.row(screen, "1.1")?.contains("running") == true, "\(screen)")

        // Resize down to the minimum, below it, and back.
        try await tmux.run(["resize-window", "-t", "t", "-x", "40", "-y", "10"])
        screen = try await tmux.waitFor() { $0.contains("Tasks") }
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 40 })
        #expect(screen.contains("Tasks"), "\(screen)")
        try await tmux.run(["resize-window", "-t", "t", "-x", "30", "-y", "8"])
        screen = try await tmux.waitFor() { $0.contains("too small") }
        #expect(screen.contains("too small"), "\(screen)")
        try await tmux.run(["resize-window", "-t", "t", "-x", "200", "-y", "30"])
        screen = try await tmux.waitFor() { $0.contains("Sessions") && $0.contains("1.1") }
        #expect(screen.contains("Sessions"), "\(screen)")

        // e: a CSV that parses, at the path the status line shows.
        try await tmux.keys("e")
        screen = try await tmux.waitFor() { $0.contains("CSV written to") }
        #expect(screen.contains("CSV written to"), "\(screen)")
        let csvs = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }
        #expect(csvs.count == 1)
        if let csv = csvs.first {
            let rows = try CSVRead.records(try String(contentsOfFile: dir + "/" + csv, encoding: .utf8))
            #expect(rows.count >= 2 && rows.allSatisfy { $0.count == rows[0].count })
            // Beside it, the per-host percentile table of the finished tasks.
            let table = try String(contentsOfFile: dir + "/" + csv.dropLast(4) + ".txt", encoding: .utf8)
            #expect(table.contains("  PHASE ") || table.hasPrefix("no transactions"), "\(table)")
            #expect(table.split(separator: "\n").allSatisfy { $0.count <= 80 })
        }

        // q: cancel with resume data, exit, terminal restored. A download the server made not
        // resumable would be lost, so q asks first; y confirms.
        try await tmux.keys("q")
        screen = try await tmux.waitFor() { $0.contains("TT-EXITED") || $0.contains("quit?") }
        if screen.contains("quit?") { try await tmux.keys("y") }
        screen = try await tmux.waitFor() { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 1"), "\(screen)")
        #expect(!screen.contains("━ Tasks"))
        #expect(try await tmux.run(["display-message", "-p", "-t", "t", "#{alternate_on}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(screen.contains("1 task: 0 succeeded"))
    }

    /// d keeps resume data, R continues it as a new task byte-exact, f and X invalidate.
    @Test func resumeDataAndInvalidation() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (server, dir, tmux) = (rig.server, rig.dir, rig.tmux)
        let size = 900_000
        server.setFile("r.bin", size: size, seed: 5)
        // r.bin sends 300 KB and holds until the gate opens; 1.2 holds forever (until X).
        let gate = UUID().uuidString
        try await rig.monitor("-o \(dir) '\(server.httpBase)/files/r.bin?gate=\(gate)&holdAfter=300000' "
                              + "'\(server.httpBase)/bytes/3000000?gate=\(UUID().uuidString)&holdAfter=65536'", width: 200, height: 30)
        try await server.waitForGate(gate)
        // The server sent exactly 300,000 bytes (293 KiB) before its gate: wait until the
        // monitor shows them all (so the response head, with its validators, is surely in).
        var screen = try await tmux.waitFor { Self.done($0) == "293 KiB/879 KiB" }
        #expect(Self.done(screen) == "293 KiB/879 KiB", "\(screen)")
        try await tmux.keys("d")
        screen = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("cancelled") == true || $0.contains("cannot be resumed") }
        #expect(!screen.contains("cannot be resumed"), "d was refused: \(screen)")
        screen = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("cancelled") == true }
        #expect(Tmux.row(screen, "1.1")?.contains("cancelled") == true, "\(screen)")
        server.openGate(gate)
        // The resume data arrives just after the task shows cancelled. The run holds it in
        // memory for R, then writes it to the state directory: once the file is there, R has it.
        try await waitFor("the resume data on disk") {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/resume")) ?? [])
                .contains { $0.hasSuffix(".resume") }
        }
        try await tmux.keys("R")
        screen = try await tmux.waitFor { Tmux.row($0, "1.3")?.contains("completed") == true }
        #expect(Tmux.row(screen, "1.3")?.contains("completed") == true, "\(screen)")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/r.bin"))
        #expect(data == Data(LoopbackServer.body(size: size, seed: 5)))
        #expect(server.stats.requests.contains { $0.header("Range") != nil })

        try await tmux.keys("f")
        screen = try await tmux.waitFor() { $0.contains("invalidating") }
        #expect(screen.contains("invalidating"), "\(screen)")
        try await tmux.keys("X")
        // X asks first; y confirms.
        screen = try await tmux.waitFor() { $0.contains("and invalidate it?") }
        #expect(screen.contains("cancel 1 task of session 1 and invalidate it?"), "\(screen)")
        try await tmux.keys("y")
        screen = try await tmux.waitFor() { $0.contains("invalidated") || Tmux.row($0, "1.2")?.contains("cancelled") == true }
        #expect(Tmux.row(screen, "1.2")?.contains("cancelled") == true, "\(screen)")
        try await tmux.keys("q")
        screen = try await tmux.waitFor() { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 1"), "\(screen)")
    }

    /// Task 1.1's `DONE/TOTAL` column, e.g. "293 KiB/879 KiB" (number and unit both: a
    /// comparison of the unit alone would call 1 KiB and 900 KiB equal).
    static func done(_ screen: String) -> String? {
        guard let row = Tmux.row(screen, "1.1") else { return nil }
        let tokens = row.split(separator: " ").map(String.init)
        guard let i = tokens.firstIndex(where: { $0.contains("/") && $0.contains("B") && !$0.contains(":") }), i > 0,
              i + 1 < tokens.count else { return nil }
        return tokens[i - 1] + " " + tokens[i] + " " + tokens[i + 1]
    }
}
