import Digest
import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferModel

/// `control NAME retry TASK`, `limit [TASK] RATE` and `connections N` against a real daemon
/// (DECISIONS 178), in the serialized suite of the daemon's tests (one daemon per rig).
extension BackgroundDaemonTests {
    /// A limit set while the download is held at a gate paces the rest: only a lower bound on
    /// the time is checked (a loaded machine only makes it slower).
    @Test func controlLimitsARunningTaskAndChangesConnectionsPerHost() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let size = 1_000_000
        #expect(try await rig.run(["--background", "lim", "-o", rig.out, "\(server.httpBase)/bytes/\(size)?seed=3&gate=\(gate)&holdAfter=65536"]).status == 0)
        try await server.waitForGate(gate)
        let limit = try await rig.run(["control", "lim", "limit", "1", "100K"])
        #expect(limit.status == 0, "\(limit.stderr)")
        #expect(limit.stdout.contains("limit lim:1: 102400 bytes/s"), "\(limit.stdout)")
        let connections = try await rig.run(["control", "lim", "connections", "3"])
        #expect(connections.status == 0 && connections.stdout.contains("connections lim: 3 per host"), "\(connections.stdout)\(connections.stderr)")
        let session = try await rig.run(["control", "lim", "limit", "0"])
        #expect(session.status == 0 && session.stdout.contains("limit lim: none"), "\(session.stdout)\(session.stderr)")
        let opened = ContinuousClock.now
        server.openGate(gate)
        let wait = try await rig.run(["wait", "lim"])
        let elapsed = ContinuousClock.now - opened
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        // All but the first 64 KiB and one 512 KiB receive buffer at 100 KiB/s: over 4 s.
        #expect(elapsed >= .milliseconds(Int(Double(size - 65_536 - 524_288) / 102_400 * 900)), "\(elapsed)")
        #expect(Self.sha(rig.out + "/\(size)") == SHA256.hex(Data(LoopbackServer.body(size: size, seed: 3))))
        // A finished task takes no limit.
        let late = try await rig.run(["control", "lim", "limit", "1", "1M"])
        #expect(late.status == 1 && late.stderr.contains("task lim:1 has ended; a limit is for a task that runs or has not started"), "\(late.stderr)")
    }

    /// A download that failed (404) is retried under its number once the file exists, and
    /// `wait` then ends in success; a task that completed ok is not retried.
    @Test func controlRetryRunsAFailedTaskAgainUnderItsNumber() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let name = "late-\(UUID().uuidString.prefix(8)).bin"
        #expect(try await rig.run(["--background", "rt", "-o", rig.out, "\(server.httpBase)/files/\(name)"]).status == 0)
        let first = try await rig.run(["wait", "rt"])
        #expect(first.status == 1 && first.stdout.contains("rt:1 completed"), "\(first.stdout)\(rig.log)")
        let running = try await rig.run(["control", "rt", "retry", "2"])
        #expect(running.status == 1 && running.stderr.contains("no task rt:2"), "\(running.stderr)")
        server.setFile(name, size: 200_000, seed: 6)
        let retry = try await rig.run(["control", "rt", "retry", "1"])
        #expect(retry.status == 0 && retry.stdout.contains("retry rt:1: started again"), "\(retry.stdout)\(retry.stderr)\(rig.log)")
        let again = try await rig.run(["wait", "rt"])
        #expect(again.status == 0 && again.stdout.contains("rt:1 completed ok 200"), "\(again.stdout)\(again.stderr)\(rig.log)")
        #expect(Self.sha(rig.out + "/" + name) == SHA256.hex(Data(LoopbackServer.body(size: 200_000, seed: 6))))
        let twice = try await rig.run(["control", "rt", "retry", "1"])
        #expect(twice.status == 1 && twice.stderr.contains("nothing to retry"), "\(twice.stderr)")
    }

    /// Limits are journaled (DECISIONS 211): after a kill -9 the restarted daemon resumes the
    /// task within its own limit, `status` shows the session's, and a session with nothing
    /// running keeps a new one for its next tasks. Only a lower bound on the time is checked.
    @Test func limitsSurviveADaemonKillAndASessionKeepsThemForLater() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let size = 1_000_000
        server.setFile("lim.bin", size: size, seed: 8)
        // Each request is held 100 kB into its body: the first at `first`; the restarted one (a
        // Range request from at most 100 kB on) passes that gate, open by then, and is held at
        // `second`: the rest, at least 800 kB, comes once the limit is back.
        let (first, second) = (UUID().uuidString, UUID().uuidString)
        let url = "\(server.httpBase)/files/lim.bin?gate=\(first),\(second)&holdAfter=100000,100000"
        #expect(try await rig.run(["--background", "kl", "-o", rig.out, url]).status == 0)
        try await server.waitForGate(first)
        #expect(try await rig.run(["control", "kl", "limit", "1", "200K"]).status == 0)
        #expect(try await rig.run(["control", "kl", "limit", "4M"]).status == 0)
        #expect(try await rig.run(["control", "kl", "connections", "3"]).status == 0)
        let records = rig.env["XDG_STATE_HOME"]! + "/transfertop/resume"
        try await waitFor("the crash-recovery record") {
            ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).contains { $0.hasSuffix(".resume") }
        }
        await rig.killDaemon()
        server.openGate(first)
        let status = try await rig.run(["status", "kl"])  // starts the daemon, which restores
        #expect(status.status == 0 && status.stdout.contains("kl: 1 task(s), 1 unfinished, 0 failed, limit 4194304 bytes/s, 3 per host"),
                "\(status.stdout)\(status.stderr)\(rig.log)")
        try await server.waitForGate(second)
        let opened = ContinuousClock.now
        server.openGate(second)
        let wait = try await rig.run(["wait", "kl"])
        let elapsed = ContinuousClock.now - opened
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(server.stats.requests.contains { $0.header("Range") != nil })
        // At least 800 kB, less one 512 KiB receive buffer and the pacer's quarter second of
        // saved-up bytes, at 200 KiB/s: over 0.9 s (the session's 4 MiB/s alone: under 0.25 s).
        #expect(elapsed >= .milliseconds(Int(Double(size - 200_000 - 524_288 - 51_200) / 204_800 * 900)), "\(elapsed)")
        #expect(Self.sha(rig.out + "/lim.bin") == SHA256.hex(Data(LoopbackServer.body(size: size, seed: 8))))
        // Nothing runs now: a session limit is kept for the next submission, not refused.
        let later = try await rig.run(["control", "kl", "connections", "2"])
        #expect(later.status == 0 && later.stdout.contains("connections kl: 2 per host (no task is running: kept for the session's next tasks)"),
                "\(later.stdout)\(later.stderr)")
        let kept = try await rig.run(["status", "kl"])
        #expect(kept.stdout.contains("kl: 1 task(s), 0 unfinished, 0 failed, limit 4194304 bytes/s, 2 per host"), "\(kept.stdout)")
    }

    @Test(arguments: [
        (["control", "s", "limit", "fast"], "control: a rate is bytes per second"),
        (["control", "s", "limit"], "control: limit takes a RATE"),
        (["control", "s", "limit", "2"], "control: limit '2' is ambiguous"),
        (["control", "s", "limit", "x", "2M"], "control: TASK is a task number"),
        (["control", "s", "connections", "0"], "control: connections takes a number of connections per host from 1"),
        (["control", "s", "connections"], "control: connections takes a number"),
        (["control", "s", "retry"], "control: retry takes the TASK"),
        (["control", "s", "suspend", "1", "2"], "control: suspend takes at most a TASK"),
    ])
    func controlChangesRefuseBadInputWithExitTwo(_ args: [String], _ message: String) async throws {
        let rig = try Rig()
        let r = try await rig.run(args)
        #expect(r.status == 2, "\(args): \(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        #expect(rig.daemonPID == nil, "a usage error started a daemon")
    }
}
