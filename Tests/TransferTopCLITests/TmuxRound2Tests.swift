import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferKit

/// In a real terminal: the mission's state names, the live "wait" phase, the queued
/// reason, an HTTP 404 as an error, colour by TERM and NO_COLOR, and line mode on TERM=dumb.
/// Deterministic: the first download's response head is held at a server gate, so it is
/// surely waiting for its first byte and the second (one connection per host) surely queued.
@Suite(.serialized) struct TmuxRound2Tests {
    struct Case: Sendable, CustomStringConvertible {
        var width: Int, height: Int, term: String, noColor = false
        var description: String { "\(width)x\(height) \(term)\(noColor ? " NO_COLOR" : "")" }
    }

    static let cases = [
        Case(width: 80, height: 24, term: "xterm-256color"),
        Case(width: 120, height: 40, term: "xterm"),
        Case(width: 200, height: 60, term: "screen"),
        Case(width: 40, height: 10, term: "linux"),
        Case(width: 120, height: 40, term: "xterm-256color", noColor: true),
    ]

    @Test(arguments: cases)
    func statesPhasesAndColour(_ c: Case) async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (binary, server, dir, tmux) = (rig.binary, rig.server, rig.dir, rig.tmux)
        let gate = UUID().uuidString
        let env = "TERM=\(c.term) LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config" + (c.noColor ? " NO_COLOR=1" : "")
        // -u: the test runner's own NO_COLOR/COLORTERM (set when its output is not a terminal)
        // must not decide the case. An hour of idle time: 1.1 waits at the gate while the test
        // reads the screen (DECISIONS 167).
        let command = "cd \(dir) && env -u NO_COLOR -u COLORTERM \(env) \(binary) --max-connections-per-host 1 --request-timeout 3600 -o \(dir) "
            + "'\(server.httpBase)/bytes/1000?headGate=\(gate)' '\(server.httpBase)/status/404'; echo TT-EXITED $?; sleep 3600"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "\(c.width)", "-y", "\(c.height)", command])
        try await server.waitForGate(gate)

        // 1.1 waits for its first byte ("wait", not "req"); 1.2 waits for the connection.
        let wide = c.width >= 80
        var screen = try await tmux.waitFor {
            Tmux.row($0, "1.1")?.contains(wide ? "wait" : "running") == true && Tmux.row($0, "1.2")?.contains("queued") == true
        }
        #expect(Tmux.row(screen, "1.1")?.contains("running") == true, "\(c): \(screen)")
        if wide {
            #expect(Tmux.row(screen, "1.1")?.contains("wait") == true, "\(c): \(screen)")
            #expect(Tmux.row(screen, "1.2")?.contains("per-host") == true, "\(c): \(screen)")
            #expect(screen.contains("TTFB"), "\(c): \(screen)")
        }
        #expect(Tmux.row(screen, "1.2")?.contains("queued") == true, "\(c): \(screen)")
        #expect(!screen.contains("frame "), "the frame time is for --debug only: \(screen)")

        let raw = try await tmux.run(["capture-pane", "-e", "-p", "-t", "t"])
        let colours = Self.foregroundCodes(raw)
        switch (c.noColor, c.term) {
        case (true, _): #expect(colours.isEmpty, "\(c): \(colours)")
        case (_, "xterm-256color"): #expect(colours.contains { $0.hasPrefix("38;5;") }, "\(c): \(colours) \(raw.debugDescription.prefix(300))")
        default: #expect(!colours.isEmpty && !colours.contains { $0.hasPrefix("38;") }, "\(c): \(colours)")
        }

        server.openGate(gate)
        screen = try await tmux.waitFor {
            Tmux.row($0, "1.1")?.contains("completed") == true && Tmux.row($0, "1.2")?.contains("completed") == true
        }
        #expect(Tmux.row(screen, "1.1")?.contains("completed") == true, "\(c): \(screen)")
        if wide {
            #expect(Tmux.row(screen, "1.1")?.contains(" ok ") == true, "\(c): \(screen)")
            #expect(Tmux.row(screen, "1.2")?.contains("HTTP 404") == true, "\(c): \(screen)")
        }
        try await tmux.keys("q")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 1"), "\(c): \(screen)")
    }

    /// TERM=dumb runs line mode: the same words, and not one escape code.
    @Test func dumbTerminalGetsPlainLines() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (binary, server, dir, tmux) = (rig.binary, rig.server, rig.dir, rig.tmux)
        let command = "cd \(dir) && env TERM=dumb LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state \(binary) -o \(dir) "
            + "'\(server.httpBase)/status/404'; echo TT-EXITED $?; sleep 3600"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "120", "-y", "30", command])
        let screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("completed HTTP 404"), "\(screen)")
        let raw = try await tmux.run(["capture-pane", "-e", "-p", "-t", "t"])
        #expect(!raw.contains("\u{1B}["), "\(raw)")
    }

    /// Line mode on a terminal (TERM=dumb here): one progress line redrawn in place while the
    /// download runs, gone at the end, and not one escape code (DECISIONS 64).
    @Test func lineModeOnATerminalRedrawsOneProgressLine() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (binary, server, dir, tmux) = (rig.binary, rig.server, rig.dir, rig.tmux)
        // The server sends 10,000 bytes and holds the rest at a gate until the test has seen the
        // line (a 4 s drip was the window before, and a loaded machine's tmux polls missed it),
        // with an hour of idle time for that wait (DECISIONS 167).
        let gate = UUID().uuidString
        let command = "cd \(dir) && env TERM=dumb LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state \(binary) --no-tui --request-timeout 3600 -o \(dir) "
            + "'\(server.httpBase)/bytes/40000?gate=\(gate)&holdAfter=10000'; echo TT-EXITED $?; sleep 3600"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "100", "-y", "30", command])
        try await server.waitForGate(gate)
        // Bytes have arrived and the line says so: it was redrawn, not printed once.
        let running = try await tmux.waitFor { $0.contains("progress: 0 done, 1 running") && !$0.contains("running  0 B ") }
        server.openGate(gate)
        #expect(running.components(separatedBy: "progress:").count == 2, "one line, redrawn in place: \(running)")
        #expect(running.contains("ETA "), "\(running)")
        let screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        #expect(!screen.contains("progress:"), "the line is cleared at the end: \(screen)")
        let raw = try await tmux.run(["capture-pane", "-e", "-p", "-t", "t"])
        #expect(!raw.contains("\u{1B}["), "\(raw)")
    }

    /// A TERM terminfo does not know: the run says so once and goes on in line mode, to the
    /// end, instead of ncurses ending the process once the transfers have started.
    @Test func anUnknownTerminalTypeRunsInLineMode() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (binary, server, dir, tmux) = (rig.binary, rig.server, rig.dir, rig.tmux)
        let command = "cd \(dir) && env TERM=no-such-terminal-xyz LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state \(binary) -o \(dir) "
            + "'\(server.httpBase)/bytes/40000'; echo TT-EXITED $?; sleep 3600"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "160", "-y", "30", command])
        let screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        let note = "transfertop: note: terminal type 'no-such-terminal-xyz' is not in this system's terminfo; using line mode"
        #expect(screen.components(separatedBy: note).count == 2, "\(screen)")
        #expect(screen.contains("1 task: 1 succeeded"), "\(screen)")
        #expect(!screen.contains("Error opening terminal"), "\(screen)")
    }

    /// Tab gives the detail pane the focus (its title rule turns heavy) in a real terminal, and
    /// Shift-Tab gives it back.
    @Test func tabFocusesTheDetailPane() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (binary, server, dir, tmux) = (rig.binary, rig.server, rig.dir, rig.tmux)
        let command = "cd \(dir) && env -u NO_COLOR TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config "
            + "\(binary) -o \(dir) '\(server.httpBase)/bytes/1000'; echo TT-EXITED $?; sleep 3600"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "80", "-y", "24", command])
        _ = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("completed") == true }
        try await tmux.keys("Enter")
        _ = try await tmux.waitFor { $0.contains("─ Task 1.1") && $0.contains("Request headers") }
        try await tmux.keys("Tab")
        let focused = try await tmux.waitFor { $0.contains("━ Task 1.1") }
        #expect(focused.contains("━ Tasks") == false, "one focused pane: \(focused)")
        try await tmux.keys("BTab")  // Shift-Tab: back to the table
        _ = try await tmux.waitFor { $0.contains("━ Tasks") && $0.contains("─ Task 1.1") }
        try await tmux.keys("q")
        let screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
    }

    /// The mouse in a real terminal: tmux cannot click for a test, but the bytes an xterm sends
    /// for a click (SGR 1006, as TERM=xterm-256color's kmous says) can be typed into the pane;
    /// ncurses decodes them as it would a real click. The terminal's mouse mode is on while the
    /// monitor runs and off after it quits.
    @Test func clickAndWheelInARealTerminal() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (binary, server, dir, tmux) = (rig.binary, rig.server, rig.dir, rig.tmux)
        let command = "cd \(dir) && env -u NO_COLOR TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config "
            + "\(binary) -o \(dir) '\(server.httpBase)/bytes/1000' '\(server.httpBase)/bytes/2000'; echo TT-EXITED $?; sleep 3600"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "80", "-y", "24", command])
        let screen = try await tmux.waitFor {
            Tmux.row($0, "1.1")?.contains("completed") == true && Tmux.row($0, "1.2")?.contains("completed") == true
        }
        #expect(try await tmux.run(["display-message", "-p", "-t", "t", "#{mouse_sgr_flag}"]).hasPrefix("1"))
        let lines = screen.components(separatedBy: "\n")
        let y = try #require(lines.firstIndex { $0.hasPrefix(" 1.2 ") }, "\(screen)")
        // Press and release of the left button at column 10 of that row (1-based in SGR).
        try await tmux.run(["send-keys", "-t", "t", "-l", "\u{1B}[<0;10;\(y + 1)M\u{1B}[<0;10;\(y + 1)m"])
        _ = try await tmux.waitFor { Tmux.row($0, "1.2")?.hasPrefix("›") == true }
        // A wheel notch up over the table moves the selection back to the first task.
        try await tmux.run(["send-keys", "-t", "t", "-l", "\u{1B}[<64;10;\(y + 1)M"])
        _ = try await tmux.waitFor { Tmux.row($0, "1.1")?.hasPrefix("›") == true }
        try await tmux.keys("q")
        let end = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(end.contains("TT-EXITED 0"), "\(end)")
        #expect(try await tmux.run(["display-message", "-p", "-t", "t", "#{mouse_sgr_flag}#{mouse_standard_flag}"]).hasPrefix("00"))
    }

    /// The foreground colour codes in a `capture-pane -e` text: `31`, `91`, `38;5;n`, `38;2;…`.
    static func foregroundCodes(_ text: String) -> [String] {
        var out: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: "\u{1B}[") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "m") else { break }
            let params = rest[..<end].split(separator: ";").map(String.init)
            rest = rest[rest.index(after: end)...]
            var i = 0
            while i < params.count {
                let p = Int(params[i]) ?? 0
                if p == 38 {
                    let n = params.count > i + 1 && params[i + 1] == "2" ? 5 : 3
                    out.append(params[i..<Swift.min(params.count, i + n)].joined(separator: ";"))
                    i += n
                    continue
                }
                if p == 48 { i += params.count > i + 1 && params[i + 1] == "2" ? 5 : 3; continue }
                if (30...37).contains(p) || (90...97).contains(p) { out.append(String(p)) }
                i += 1
            }
        }
        return out
    }
}
