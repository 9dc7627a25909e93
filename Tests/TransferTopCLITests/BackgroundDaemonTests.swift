import BackgroundWire
import CTestSupport
import Digest
import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferModel
@testable import TransferTopCLI
@testable import TransferTopDaemon

/// With real processes: `transfertop --background`, `status`, `wait`, `attach`,
/// `control` and `daemon`, each a process of its own, the daemon started on demand in the
/// rig's private XDG directories and killed at the end of each test.
@Suite(.serialized) struct BackgroundDaemonTests {
    /// Private XDG directories shared by every command of one test (one daemon per rig).
    final class Rig: @unchecked Sendable {
        let dir: String
        let env: [String: String]
        var paths: DaemonPaths { try! DaemonPaths.standard(env) }
        var out: String { dir + "/out" }

        init() throws {
            dir = try Run.tempDirectory()
            var e: [String: String] = [:]
            for key in ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"] {
                e[key] = dir + "/" + key.lowercased()
            }
            env = e
        }

        func run(_ args: [String], extra: [String: String] = [:]) async throws -> RunResult {
            try await Run.binary(Self.patient(args), environment: env.merging(extra) { $1 })
        }

        /// A submission's tasks get an hour of idle time: tests hold them at server gates while
        /// other commands run, which under a sanitizer takes past the 60 s default (a TSan run's
        /// gated download failed as timed out). Usage-error cases are left as they are.
        static func patient(_ args: [String]) -> [String] {
            guard args.count > 2, args[0] == "--background", args.contains("-o") else { return args }
            return Array(args[0...1]) + ["--request-timeout", "3600"] + args[2...]
        }

        func spawn(_ args: [String]) throws -> Spawned { try Run.spawn(args, environment: env) }

        var daemonPID: Int32? { DaemonLock.holderPID(paths.lock) }

        /// The daemon's log (its stderr), for the message of a failed expectation: what the
        /// daemon said is the first thing to read when a command of this rig fails in CI.
        var log: String {
            let text = (try? String(contentsOfFile: paths.log, encoding: .utf8)) ?? "(no daemon log)"
            return "\n--- daemon log ---\n" + String(text.suffix(3000))
        }

        /// kill -9 of the daemon; returns once its lock is free (it is gone).
        func killDaemon() async {
            guard let pid = daemonPID else { return }
            kill(pid, SIGKILL)
            let paths = self.paths
            _ = await offPool { DaemonClient.waitUntilGone(paths) }
        }

        deinit {
            if let pid = daemonPID { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    static func sha(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { SHA256.hex($0) }
    }

    @Test func submitReturnsAtOnceAndWaitReportsTheOutcomes() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        // The second one waits at a gate: `--background` must return before it finishes.
        server.setFile("a.bin", size: 3000, seed: 3)  // with validators: a rerun can tell it is unchanged
        let urls = ["\(server.httpBase)/files/a.bin", "\(server.httpBase)/bytes/2000?seed=4&headGate=\(gate)"]
        let submit = try await rig.run(["--background", "s1", "-o", rig.out] + urls)
        #expect(submit.status == 0, "\(submit.stdout)\(submit.stderr)\(rig.log)")
        #expect(submit.stdout.split(separator: "\n").map(String.init) == ["s1:1 \(urls[0])", "s1:2 \(urls[1])"])
        try await server.waitForGate(gate)
        let status = try await rig.run(["status", "s1", "--json"])
        #expect(status.status == 0, "\(status.stderr)\(rig.log)")
        let sessions = try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(status.stdout.utf8))
        #expect(sessions.first?.tasks.map(\.number) == [1, 2])
        #expect(sessions.first?.tasks.last?.state != "completed")
        server.openGate(gate)
        let wait = try await rig.run(["wait", "s1"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(wait.stdout.contains("s1:1 completed ok 200") && wait.stdout.contains("s1:2 completed ok 200"), "\(wait.stdout)")
        #expect(wait.stdout.contains("s1: 2 task(s) completed, 0 failed"))
        #expect(Self.sha(rig.out + "/a.bin") == SHA256.hex(Data(LoopbackServer.body(size: 3000, seed: 3))))
        // Submitted again, a finished file is skipped as a local rerun skips it.
        let again = try await rig.run(["--background", "s1", "-o", rig.out, urls[0]])
        #expect(again.status == 0, "\(again.stderr)\(rig.log)")
        #expect(again.stdout.contains("already complete") && again.stdout.contains("nothing to submit"), "\(again.stdout)")
        // The socket is this user's only; the daemon says where it is.
        var st = stat()
        #expect(stat(rig.paths.socket, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(stat(rig.paths.runtimeDirectory, &st) == 0 && st.st_mode & 0o777 == 0o700)
        let daemon = try await rig.run(["daemon", "status"])
        #expect(daemon.status == 0 && daemon.stdout.contains("pid \(rig.daemonPID ?? -1)"), "\(daemon.stdout)")
        let stop = try await rig.run(["daemon", "stop"])
        #expect(stop.status == 0, "\(stop.stdout)\(stop.stderr)\(rig.log)")
        #expect(rig.daemonPID == nil)
        // Stopped, the journal is all in its file: the WAL was checkpointed into it.
        #expect(fileSize(rig.paths.journal + "-wal") == 0, "\(rig.log)")
        #expect(fileSize(rig.paths.journal) > 4096)
        let after = try await rig.run(["daemon", "status"])
        #expect(after.status == 1 && after.stdout.contains("no transfertop daemon is running"))
    }

    @Test func aFailedTaskMakesWaitExitOne() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let submit = try await rig.run(["--background", "f", "-o", rig.out, "\(server.httpBase)/status/404", "\(server.httpBase)/bytes/10"])
        #expect(submit.status == 0, "\(submit.stderr)\(rig.log)")
        let wait = try await rig.run(["wait", "f"])
        #expect(wait.status == 1, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(wait.stdout.contains("f:1 completed failed 404"), "\(wait.stdout)")
        #expect(wait.stdout.contains("2 task(s) completed, 1 failed"))
    }

    @Test func aSecondDaemonRefusesAndAStaleSocketIsReplaced() async throws {
        let rig = try Rig()
        // A crashed daemon's socket file: bound, never unlinked, nobody listening.
        let paths = rig.paths
        let stale = try UnixListener(path: paths.socket)
        close(stale.fd)  // closed, never unlinked: a stale socket file
        let start = try await rig.run(["daemon", "start"])
        #expect(start.status == 0, "\(start.stdout)\(start.stderr)\(rig.log)")
        let pid = try #require(rig.daemonPID)
        let second = try await rig.run(["daemon", "run"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("a transfertop daemon is already running (pid \(pid))"), "\(second.stderr)")
        #expect(rig.daemonPID == pid)
    }

    /// Two runtime directories over one journal (a shell with XDG_RUNTIME_DIR, another without):
    /// the second daemon refuses the journal the first runs, and the command that started it
    /// on demand says why.
    @Test func aSecondDaemonOverTheSameJournalRefusesAndSaysWhy() async throws {
        let rig = try Rig()
        let start = try await rig.run(["daemon", "start"])
        #expect(start.status == 0, "\(start.stdout)\(start.stderr)\(rig.log)")
        let pid = try #require(rig.daemonPID)
        let elsewhere = ["XDG_RUNTIME_DIR": rig.dir + "/other-runtime"]
        let status = try await rig.run(["status"], extra: elsewhere)
        #expect(status.status == 1, "\(status.stdout)\(status.stderr)")
        #expect(status.stderr.contains("the daemon did not start: another transfertop daemon (pid \(pid)) runs the journal \(rig.paths.journal)"),
                "\(status.stderr)")
        #expect(rig.daemonPID == pid)
    }

    /// A daemon stopped with SIGSTOP (Ctrl-Z on `daemon run`) still accepts connections but
    /// never answers: a command says so after the hello's bound (shortened here; the daemon
    /// cannot answer, so no machine is too slow for it), and `daemon stop` ends it with
    /// SIGTERM and SIGCONT, keeping resume data as a stop does.
    @Test func aStoppedDaemonIsSaidAndDaemonStopEndsIt() async throws {
        let rig = try Rig()
        let start = try await rig.run(["daemon", "start"])
        #expect(start.status == 0, "\(start.stdout)\(start.stderr)\(rig.log)")
        let pid = try #require(rig.daemonPID)
        kill(pid, SIGSTOP)
        let quick = ["TRANSFERTOP_TEST_HELLO_TIMEOUT": "1"]
        let status = try await rig.run(["status"], extra: quick)
        #expect(status.status == 1, "\(status.stdout)\(status.stderr)")
        #expect(status.stderr.contains("the transfertop daemon (pid \(pid)) does not answer within 1 s: it may be stopped ('kill -CONT \(pid)' resumes it)"),
                "\(status.stderr)")
        let stop = try await rig.run(["daemon", "stop"], extra: quick)
        #expect(stop.status == 0, "\(stop.stdout)\(stop.stderr)\(rig.log)")
        #expect(stop.stdout.contains("transfertop daemon (pid \(pid)) stopped"), "\(stop.stdout)")
        #expect(rig.daemonPID == nil)
    }

    /// A completion the journal cannot take (its file may grow no further, as on a full disk)
    /// is written again once it can: `wait` then ends with the task's outcome, where it had
    /// waited for ever on a task that had ended. A 404 writes no file, so only the journal
    /// meets the limit; the daemon's log, which says the failure, stays under it.
    @Test func aCompletionTheJournalRefusedIsWrittenOnceItCanBe() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let submit = try await rig.run(["--background", "full", "-o", rig.out, "\(server.httpBase)/status/404?headGate=\(gate)"])
        #expect(submit.status == 0, "\(submit.stderr)\(rig.log)")
        try await server.waitForGate(gate)
        let pid = try #require(rig.daemonPID)
        let paths = rig.paths
        // The limit is the WAL's size now: the next commit cannot grow it, while the daemon's
        // log (far smaller) can still say so. Not a tiny limit: under a sanitizer, a process
        // limited to a few hundred bytes died of SIGBUS in the runtime's own file mappings.
        let wal = fileSize(paths.journal + "-wal"), logSize = fileSize(paths.log)
        try #require(wal > logSize + 4096, "the WAL (\(wal) bytes) is past the log (\(logSize))")
        #expect(tt_set_soft_file_size_limit(pid, Int64(wal)) == 0)
        server.openGate(gate)
        try await waitFor("the journal to refuse the completion") {
            ((try? String(contentsOfFile: paths.log, encoding: .utf8)) ?? "").contains("transfertop daemon: journal:")
        }
        #expect(tt_set_soft_file_size_limit(pid, -1) == 0)
        let wait = try await rig.run(["wait", "full"])
        #expect(wait.status == 1, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(wait.stdout.contains("full:1 completed failed 404"), "\(wait.stdout)\(rig.log)")
    }

    /// The client dies; the transfers do not, and a new client gets every event it missed.
    @Test func killingTheClientLosesNothingAndReattachingDeliversTheMissedEvents() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/bytes/5000?seed=9&headGate=\(gate)"
        #expect(try await rig.run(["--background", "k", "-o", rig.out, url]).status == 0)
        let waiter = try rig.spawn(["wait", "k"])
        try await server.waitForGate(gate)
        waiter.signal(SIGKILL)
        _ = await waiter.wait()
        server.openGate(gate)
        let again = try await rig.run(["wait", "k"])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)\(rig.log)")
        #expect(again.stdout.contains("k:1 completed ok 200"), "\(again.stdout)")
        #expect(Self.sha(rig.out + "/5000") == SHA256.hex(Data(LoopbackServer.body(size: 5000, seed: 9))))
    }

    /// kill -9 of the daemon twenty times in one download, each time at another server-side
    /// gate: the next command restarts it, it restores the task from the journal and resumes
    /// from the partial file with a Range request; the file is byte-exact at the end.
    @Test func killingTheDaemonTwentyTimesKeepsTheDownloadByteExact() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let size = 12_000_000
        server.setFile("big.bin", size: size, seed: 7)
        let gates = (1...20).map { _ in UUID().uuidString }
        // Gate offsets count from the start of each response's body, and every restart is a new
        // (Range) request: the n-th request passes the n-1 gates already open and is held at the
        // n-th, 130-170 kB further each time (the sum, ~8.5 MB, stays inside the file). Past
        // 64 KiB: a download's first bytes stay in memory until then, with no partial file to
        // resume.
        let offsets = (1...20).map { 100_000 + $0 * 30_000 + Int.random(in: 0..<10_000) }
        let url = "\(server.httpBase)/files/big.bin?gate=\(gates.joined(separator: ","))&holdAfter=\(offsets.map(String.init).joined(separator: ","))"
        #expect(try await rig.run(["--background", "big", "-o", rig.out, url]).status == 0)
        let records = rig.env["XDG_STATE_HOME"]! + "/transfertop/resume"
        for (i, gate) in gates.enumerated() {
            do { try await server.waitForGate(gate) } catch {
                let log = (try? String(contentsOfFile: rig.paths.log, encoding: .utf8)) ?? ""
                let status = try await rig.run(["status", "big"])
                let files = (try? FileManager.default.contentsOfDirectory(atPath: rig.out)) ?? []
                let requests = server.stats.requests.map { r in r.headers.filter { ["range", "if-range"].contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" } }
                let sockets = (try? await ToolRun.run("/usr/bin/ss", ["-tnp"]))?.output ?? ""
                Issue.record("sockets: \(sockets)")
                Issue.record("kill \(i + 1): \(error)\nlog: \(log)\nstatus: \(status.stdout)\nfiles: \(files.map { "\($0) \(fileSize(rig.out + "/" + $0))" })\nrequests: \(requests) arrivals \(gates.map { server.gateArrivals($0) })")
                return
            }
            // A crash-recovery record must be on disk for a kill to leave something to resume.
            try await waitFor("the crash-recovery record") {
                ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).contains { $0.hasSuffix(".resume") }
            }
            await rig.killDaemon()
            server.openGate(gate)
            let status = try await rig.run(["status", "big"])  // starts the daemon, which restores
            #expect(status.status == 0, "kill \(i + 1): \(status.stdout)\(status.stderr)")
        }
        let wait = try await rig.run(["wait", "big"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(Self.sha(rig.out + "/big.bin") == SHA256.hex(Data(LoopbackServer.body(size: size, seed: 7))))
        #expect(server.stats.requests.filter { $0.header("Range") != nil }.count >= 10)
        #expect(!FileManager.default.fileExists(atPath: rig.out + "/.big.bin.ttpart"))
    }

    /// A download that went through a redirect before the daemon was killed is still the same
    /// task after the restart (it resumes from the mirror's URL), and completes ok.
    @Test func aRedirectedDownloadResumesAsTheSameTask() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        server.setFile("r.bin", size: 900_000, seed: 4)
        let gate = UUID().uuidString
        let target = "\(server.httpBase)/files/r.bin?gate=\(gate)&holdAfter=300000"
        let url = "\(server.httpBase)/redirect-to?url=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try await rig.run(["--background", "m", "-o", rig.out, url]).status == 0)
        try await server.waitForGate(gate)
        let records = rig.env["XDG_STATE_HOME"]! + "/transfertop/resume"
        try await waitFor("the crash-recovery record") {
            ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).contains { $0.hasSuffix(".resume") }
        }
        await rig.killDaemon()
        server.openGate(gate)
        let wait = try await rig.run(["wait", "m"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(wait.stdout.contains("m:1 completed ok"), "\(wait.stdout)")
        #expect(server.stats.requests.contains { $0.header("Range") != nil })
        #expect(Self.sha(rig.out + "/r.bin") == SHA256.hex(Data(LoopbackServer.body(size: 900_000, seed: 4))))
    }

    /// A download cancelled with resume data is reported as such, not as a failure.
    @Test func cancelWithResumeDataIsItsOwnOutcome() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        // A file with a validator, so the download can be continued.
        server.setFile("k.bin", size: 300_000, seed: 5)
        #expect(try await rig.run(["--background", "k", "-o", rig.out, "\(server.httpBase)/files/k.bin?gate=\(gate)&holdAfter=100000"]).status == 0)
        try await server.waitForGate(gate)
        #expect(try await rig.run(["control", "k", "cancel-with-resume-data", "1"]).status == 0)
        server.openGate(gate)
        let wait = try await rig.run(["wait", "k"])
        #expect(wait.stdout.contains("k:1 completed cancelled, resume data kept"), "\(wait.stdout)\(rig.log)")
        #expect(!wait.stdout.contains("k:1 completed failed"), "\(wait.stdout)")
        // The same download again continues from that resume data, and `wait` says so before
        // the completion it led to.
        #expect(try await rig.run(["--background", "k", "-o", rig.out, "\(server.httpBase)/files/k.bin?gate=\(gate)&holdAfter=100000"]).status == 0)
        let again = try await rig.run(["wait", "k"])
        let lines = again.stdout.split(separator: "\n").map(String.init)
        let resuming = lines.firstIndex { $0.contains("resuming") }
        let completed = lines.firstIndex { $0.hasPrefix("k:2 completed ok") }
        #expect(resuming != nil && completed != nil && resuming! < completed!, "\(again.stdout)\(rig.log)")
    }

    /// Invalidating a session whose task no runner holds (suspended when the daemon died) ends
    /// that task too, so `wait` ends.
    @Test func invalidatingEndsTasksNoRunnerHolds() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        #expect(try await rig.run(["--background", "v", "-o", rig.out, "\(server.httpBase)/bytes/300000?gate=\(gate)&holdAfter=100000"]).status == 0)
        try await server.waitForGate(gate)
        #expect(try await rig.run(["control", "v", "suspend", "1"]).status == 0)
        await rig.killDaemon()
        server.openGate(gate)
        #expect(try await rig.run(["control", "v", "invalidate"]).status == 0)
        let wait = try await rig.run(["wait", "v"])
        #expect(wait.status == 1, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(wait.stdout.contains("v:1 completed failed") && wait.stdout.contains("session invalidated"), "\(wait.stdout)")
    }

    /// A suspended task stays suspended across a daemon restart, and `control … resume` starts
    /// it; two attached clients see the same events; invalidation ends both.
    @Test func suspendedStaysSuspendedAcrossARestartAndTwoAttachedClientsSeeTheSameEvents() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/bytes/300000?seed=2&gate=\(gate)&holdAfter=100000"
        #expect(try await rig.run(["--background", "p", "-o", rig.out, url]).status == 0)
        try await server.waitForGate(gate)
        let suspend = try await rig.run(["control", "p", "suspend", "1"])
        #expect(suspend.status == 0, "\(suspend.stderr)")
        // `control` answers once the journal has the change: a kill -9 now keeps it.
        let before = try await rig.run(["status", "p", "--json"])
        #expect(before.stdout.contains("\"state\" : \"suspended\""), "\(before.stdout)")
        await rig.killDaemon()
        server.openGate(gate)
        let a = try rig.spawn(["attach", "p"]), b = try rig.spawn(["attach", "p"])
        // Both following before the task goes on: a completion prunes its task's earlier
        // events below the slowest live follower (DECISIONS 133), so a client that attached
        // only after it would see the outcome alone, not the same stream.
        try await waitFor("both attached") {
            [a, b].allSatisfy { ((try? String(contentsOfFile: $0.outPath, encoding: .utf8)) ?? "").contains("daemon restarted") }
        }
        let status = try await rig.run(["status", "p", "--json"])
        #expect(status.stdout.contains("\"state\" : \"suspended\""), "\(status.stdout)")
        #expect(try await rig.run(["control", "p", "resume", "1"]).status == 0)
        let wait = try await rig.run(["wait", "p"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(Self.sha(rig.out + "/300000") == SHA256.hex(Data(LoopbackServer.body(size: 300_000, seed: 2))))
        #expect(try await rig.run(["control", "p", "invalidate"]).status == 0)
        let (ra, rb) = (await a.wait(), await b.wait())
        #expect(ra.status == 0 && rb.status == 0, "\(ra.stderr)\(rb.stderr)")
        #expect(ra.stdout == rb.stdout)
        #expect(ra.stdout.contains("p:1 completed ok 200") && ra.stdout.contains("p: session invalidated"), "\(ra.stdout)")
    }

    /// A follower that falls behind still sees every task's events: its `attach` is stopped,
    /// so the daemon's writes to it block once the socket is full, and the tasks complete
    /// meanwhile; a completion prunes only what every live follower has read (DECISIONS 133).
    @Test func aFollowerThatFallsBehindStillSeesEveryTasksEvents() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        #expect(try await rig.run(["--background", "lag", "-o", rig.out, "\(server.httpBase)/bytes/300000?gate=\(gate)&holdAfter=100000"]).status == 0)
        try await server.waitForGate(gate)
        let a = try rig.spawn(["attach", "lag"])
        try await waitFor("attached") { ((try? String(contentsOfFile: a.outPath, encoding: .utf8)) ?? "").contains("lag:1 running") }
        a.signal(SIGSTOP)
        // Two events of 3 KiB or more per task, 80 tasks: far more than a socket holds.
        let pad = String(repeating: "p", count: 3_000)
        let urls = (2...81).map { "\(server.httpBase)/bytes/\(100 + $0)?pad=\(pad)" }
        #expect(try await rig.run(["--background", "lag", "-o", rig.out] + urls).status == 0)
        server.openGate(gate)
        let wait = try await rig.run(["wait", "lag"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        a.signal(SIGCONT)
        #expect(try await rig.run(["control", "lag", "invalidate"]).status == 0)
        let ra = await a.wait()
        #expect(ra.status == 0, "\(ra.stderr)")
        let lines = ra.stdout.split(separator: "\n")
        for n in 1...81 {
            #expect(lines.contains { $0.hasPrefix("lag:\(n) running ") }, "task \(n) has no running line")
            #expect(lines.contains { $0.hasPrefix("lag:\(n) completed ok 200 ") }, "task \(n) has no completion line")
        }
        // With the follower gone, what was kept for it goes: a later reader gets the outcomes.
        try await waitFor("the kept events pruned") {
            let again = try await rig.run(["attach", "lag"]).stdout
            return again.contains("lag:81 completed ok") && !again.contains(" running ")
        }
    }

    /// Tasks submitted with `-u` cannot go on after a kill -9 (the password was never on
    /// disk): the restarted daemon's note counts them as ended, not resumed, and each says why.
    @Test func afterAKillTasksWithCredentialsAreCountedAsEndedNotResumed() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let urls = (1...2).map { "\(server.httpBase)/bytes/300000?seed=\($0)&gate=\(gate)&holdAfter=100000" }
        let submit = try await rig.run(["--background", "cred", "-o", rig.out, "-u", "someone:pw-\(gate)"] + urls)
        #expect(submit.status == 0, "\(submit.stderr)\(rig.log)")
        try await server.waitForGate(gate)
        await rig.killDaemon()
        server.openGate(gate)
        let wait = try await rig.run(["wait", "cred"])
        #expect(wait.status == 1, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(wait.stdout.contains("daemon restarted: 0 task(s) resumed, 2 ended (see their errors), 0 suspended"), "\(wait.stdout)")
        #expect(wait.stdout.contains("cred:1 completed failed") && wait.stdout.contains("credentials are not kept on disk"), "\(wait.stdout)")
    }

    /// Credentials go to the daemon over its private socket, never into its journal.
    @Test func aPasswordNeverReachesTheJournal() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let secret = AuthRoutes.password  // `/auth/basic` has it nowhere in its URL
        let submit = try await rig.run(["--background", "auth", "-o", rig.out, "-u", "\(AuthRoutes.user):\(secret)",
                                         "\(server.httpBase)/auth/basic"])
        #expect(submit.status == 0, "\(submit.stderr)\(rig.log)")
        let wait = try await rig.run(["wait", "auth"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        // Nowhere in the daemon's files: journal (and its WAL), log, resume records; neither
        // as typed nor as the Basic header carries it.
        let state = rig.env["XDG_STATE_HOME"]! + "/transfertop"
        let basic = Data("\(AuthRoutes.user):\(secret)".utf8).base64EncodedString()
        let files = FileManager.default.enumerator(atPath: state)?.allObjects as? [String] ?? []
        #expect(files.contains("background.sqlite") && files.contains("daemon.log"))
        for name in files {
            guard let bytes = FileManager.default.contents(atPath: state + "/" + name) else { continue }
            #expect(bytes.range(of: Data(secret.utf8)) == nil && bytes.range(of: Data(basic.utf8)) == nil, "\(name) holds the password")
        }
    }

    @Test func versionSkewRestartsAnIdleDaemonAndRefusesABusyOne() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let old = ["TRANSFERTOP_TEST_DAEMON_VERSION": "v0.0.1-old"]
        #expect(try await rig.run(["daemon", "start"], extra: old).status == 0)
        let oldPID = try #require(rig.daemonPID)
        let idle = try await rig.run(["status"])
        #expect(idle.status == 0, "\(idle.stderr)")
        #expect(idle.stderr.contains("is version v0.0.1-old") && idle.stderr.contains("restarting it"), "\(idle.stderr)")
        #expect(rig.daemonPID != oldPID)
        // Busy: an old daemon with a held task is left alone, with a message.
        await rig.killDaemon()
        let gate = UUID().uuidString
        #expect(try await rig.run(["daemon", "start"], extra: old).status == 0)
        let client = try DaemonClient.hello(rig.paths)
        _ = client  // the old daemon answers hello with its version
        #expect(client.daemonVersion == "v0.0.1-old")
        let busySubmit = try await rig.run(["--background", "b", "-o", rig.out, "\(server.httpBase)/bytes/10?headGate=\(gate)"], extra: old)
        #expect(busySubmit.status == 0, "\(busySubmit.stderr)")
        try await server.waitForGate(gate)
        let refused = try await rig.run(["status"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("1 unfinished task(s)") && refused.stderr.contains("transfertop daemon stop"), "\(refused.stderr)")
        server.openGate(gate)
    }

    @Test func tenThousandTasksAreSubmittedInOneGo() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let list = rig.dir + "/urls.txt"
        try (1...10_000).map { "\(server.httpBase)/bytes/10?n=\($0)&headGate=never-\(UUID().uuidString.prefix(4))" }
            .joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let submit = try await rig.run(["--background", "many", "-o", rig.out, "-i", list])
        #expect(submit.status == 0, "\(submit.stderr)\(rig.log)")
        #expect(submit.stdout.split(separator: "\n").count == 10_000)
        #expect(submit.stdout.hasPrefix("many:1 ") && submit.stdout.contains("many:10000 "))
        #expect(try await rig.run(["control", "many", "invalidate"]).status == 0)
        // Most never started (the runner feeds a window): they end too, so `wait` ends.
        let wait = try await rig.run(["wait", "many"])
        #expect(wait.status == 1, "\(wait.stderr)")
        #expect(wait.stdout.contains("many: 10000 task(s) completed, 10000 failed"), "\(wait.stdout.suffix(300))")
    }

    @Test(arguments: [
        (["--background", "bad name"], "--background takes a session name"),
        (["--background", "x", "--upload", "-", "http://127.0.0.1:1/"], "--background cannot read --upload -"),
        (["wait"], "missing"),
        (["control", "s", "explode"], "control: ACTION is"),
        (["control", "s", "suspend", "0"], "control: TASK is a task number"),
        (["daemon", "dance"], "daemon: ACTION is run, start, status, stop or dial-stdio"),
        (["status", "-o", "/tmp"], "'status' takes no transfer options"),
    ])
    func usageErrorsExitTwo(_ args: [String], _ message: String) async throws {
        let rig = try Rig()
        let r = try await rig.run(args)
        #expect(r.status == 2, "\(args): \(r.stdout)\(r.stderr)")
        #expect(r.stderr.lowercased().contains(message.lowercased()), "\(args): \(r.stderr)")
        #expect(rig.daemonPID == nil, "a usage error started a daemon")
    }
}
