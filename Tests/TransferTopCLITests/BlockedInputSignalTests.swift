import Foundation
import LoopbackServer
import TestSupport
import Testing

/// A FIFO that never gets a writer, given wherever a run reads a file: one SIGTERM ends the
/// run (`timeout` and systemd send it once), and a file that must be read more than once, or
/// whose length goes first, is refused at once. The real binary, real FIFOs; the signal is
/// sent once a thread of the process is seen blocked in the FIFO's open (its wchan), never
/// after a sleep.
@Suite struct BlockedInputSignalTests {
    struct Rig {
        let dir: String
        let fifo: String
        var env: [String: String] { ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"] }

        init() throws {
            dir = try Run.tempDirectory()
            fifo = dir + "/fifo"
            guard mkfifo(fifo, 0o600) == 0 else { throw TestFailure("mkfifo: \(String(cString: strerror(errno)))") }
        }

        func remove() { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// Whether a thread of `pid` sleeps in the open of a FIFO, waiting for the other end.
    static func isBlockedOpeningAFIFO(_ pid: pid_t) -> Bool {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.contains { tid in
            let wchan = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/wchan", encoding: .utf8)) ?? ""
            return wchan.trimmingCharacters(in: .whitespacesAndNewlines) == "wait_for_partner"
        }
    }

    /// Starts the binary, waits until it is blocked on the FIFO, sends one SIGTERM and
    /// returns what it printed once it has exited, with the seconds the exit took. An hour of
    /// idle time: the blocked task must still be running when a slow test sends the signal
    /// (DECISIONS 167).
    static func terminateWhenBlocked(_ args: [String], _ rig: Rig) async throws -> (RunResult, Double) {
        let run = try Run.spawn(["--no-tui", "--request-timeout", "3600"] + args, environment: rig.env)
        try await waitFor("the run to block opening the FIFO") { Self.isBlockedOpeningAFIFO(run.pid) || run.hasExited }
        #expect(!run.hasExited, "it ended before it blocked")
        let sent = Date()
        run.signal(SIGTERM)
        try await waitFor("the run to end after one SIGTERM") { run.hasExited }
        let took = Date().timeIntervalSince(sent)
        return (await run.wait(), took)
    }

    /// `-T FIFO`: the upload is read as a stream on a thread of its own; SIGTERM cancels the
    /// task as for any upload, and the run ends with the usual interrupted summary.
    @Test func anUploadFromAFIFOEndsAtTheFirstSIGTERM() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        defer { rig.remove() }
        let (r, took) = try await Self.terminateWhenBlocked(["-T", rig.fifo, "\(server.httpBase)/echo"], rig)
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("terminated; cancelling, keeping resume data"), "\(r.stdout)")
        #expect(r.stdout.contains("interrupted: 1 task(s) did not finish"), "\(r.stdout)")
        #expect(took < eventDeadline / 4, "took \(took) s")
    }

    /// A task blocked where no cancel reaches it (libcurl's own open of a `file:` URL naming a
    /// FIFO): the run ends without it once the grace after the cancels has passed, with the
    /// summary and the interrupted status.
    @Test func aTaskThatCannotBeCancelledDoesNotHoldTheRun() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let (r, took) = try await Self.terminateWhenBlocked(["-o", rig.dir + "/out", "file://" + rig.fifo], rig)
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("no task stopped for 2 s after the cancel; ending without the ones left"), "\(r.stderr)")
        #expect(r.stdout.contains("interrupted: 1 task(s) did not finish"), "\(r.stdout)")
        #expect(took < eventDeadline / 4, "took \(took) s")
    }

    /// `-i FIFO` and `--job FIFO` are read before anything starts, as `cat` would read them
    /// (`-i <(generator)` is a pipe too): the run waits for the writer, and SIGTERM ends it
    /// then with the default action (143 in a shell), nothing having started.
    @Test(arguments: [["-i"], ["--job"]])
    func aListOrJobFromAFIFOEndsAtTheFirstSIGTERM(_ option: [String]) async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let (r, took) = try await Self.terminateWhenBlocked(option + [rig.fifo], rig)
        #expect(r.status == 128 + SIGTERM, "\(r.stdout)\(r.stderr)")
        #expect(took < eventDeadline / 4, "took \(took) s")
    }

    /// Files read again later (`--netrc-file` by libcurl at every request, `-b` by every
    /// session) and form files (their length is sent first) are refused as FIFOs at once: the
    /// check is a stat, which never blocks, so the run exits 2 without a signal.
    @Test(arguments: [
        (["--netrc-file", "{fifo}"], "netrc file '{fifo}' is not a regular file"),
        (["-b", "{fifo}"], "cookie file '{fifo}' is a FIFO; -b reads a regular file"),
        (["-F", "f=@{fifo}"], "--form file '{fifo}' is a FIFO; a form sends regular files"),
        (["-F", "f=<{fifo}"], "--form file '{fifo}' is a FIFO"),
        (["--cacert", "{fifo}"], "--cacert file '{fifo}' is a FIFO, not a regular file"),
    ])
    func aFIFOThatWouldBeReadTwiceIsRefusedWithoutBlocking(_ args: [String], _ message: String) async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let r = try await Run.binary(["--no-tui"] + args.map { $0.replacingOccurrences(of: "{fifo}", with: rig.fifo) }
                                     + ["http://127.0.0.1:1/x"], environment: rig.env)
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains(message.replacingOccurrences(of: "{fifo}", with: rig.fifo)), "\(r.stderr)")
    }
}

/// The monitor in a tmux pane: one SIGTERM ends it, with the terminal restored and the
/// summary printed, while a task is blocked where no cancel reaches (a `file:` URL naming a
/// FIFO without a writer).
@Suite struct BlockedMonitorSignalTests {
    /// The process whose command line holds `argument` (the FIFO's unique path).
    static func pid(withArgument argument: String) -> pid_t? {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in all {
            guard let pid = pid_t(entry),
                  let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let args = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if args.first?.hasSuffix("/transfertop") == true, args.contains(where: { $0.contains(argument) }) { return pid }
        }
        return nil
    }

    @Test func theMonitorEndsAtTheFirstSIGTERM() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let fifo = rig.dir + "/fifo"
        guard mkfifo(fifo, 0o600) == 0 else { throw TestFailure("mkfifo: \(String(cString: strerror(errno)))") }
        let command = "cd \(rig.dir) && env TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=\(rig.dir)/state XDG_CONFIG_HOME=\(rig.dir)/config "
            + "\(rig.binary) --request-timeout 3600 -o \(rig.dir)/out 'file://\(fifo)'; echo TT-EXITED $?; sleep 3600"
        try await rig.tmux.run(["new-session", "-d", "-s", "t", "-x", "160", "-y", "30", command])
        try await waitFor("the monitor to start") { Self.pid(withArgument: fifo) != nil }
        let pid = try #require(Self.pid(withArgument: fifo))
        try await waitFor("the monitor to block opening the FIFO") { BlockedInputSignalTests.isBlockedOpeningAFIFO(pid) }
        _ = try await rig.tmux.waitFor { Tmux.row($0, "1.1") != nil }
        kill(pid, SIGTERM)
        let screen = try await rig.tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 1"), "\(screen)")
        #expect(screen.contains("no task stopped for a while after the cancel; ending without the ones left"), "\(screen)")
        #expect(screen.contains("1 task: 0 succeeded"), "\(screen)")
        #expect(try await rig.tmux.run(["display-message", "-p", "-t", "t", "#{alternate_on}"])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
