import BackgroundWire
import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopDaemon

/// `--host ssh://…` and `attach ssh://host/NAME` against a real sshd on 127.0.0.1: two aliases
/// are two hosts with a daemon each; every remote command runs `transfertop daemon dial-stdio`
/// there through ssh, with ssh's own configuration, key and known_hosts.
@Suite(.serialized) struct SSHRemoteTests {
    @Test func twoHostsAreWatchedAndSteeredThroughSSH() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let ssh = try await SSHServerRig.start(aliases: ["hosta", "hostb"])
        let client = ssh.clientEnvironment
        let hostB = ssh.hosts["hostb"]!
        let out = ssh.dir + "/hostb-out"
        // On host b, as its user would: a download held at the server's head gate.
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/bytes/70000?seed=5&headGate=\(gate)"
        let submit = try await Run.binary(["--background", "nightly", "--request-timeout", "3600", "-o", out, url], environment: hostB)
        #expect(submit.status == 0, "\(submit.stderr)")
        try await server.waitForGate(gate)

        // Each host answers for itself: b has the session, a (its daemon started by ssh) none.
        let statusB = try await Run.binary(["status", "--json", "--host", "ssh://hostb"], environment: client)
        #expect(statusB.status == 0, "\(statusB.stderr)")
        let sessionsB = try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(statusB.stdout.utf8))
        #expect(sessionsB.map(\.name) == ["nightly"] && sessionsB.first?.tasks.count == 1, "\(statusB.stdout)")
        let statusA = try await Run.binary(["status", "--host", "ssh://hosta"], environment: client)
        #expect(statusA.status == 0 && statusA.stdout.contains("no background sessions"), "\(statusA.stdout)\(statusA.stderr)")

        // Suspended and resumed on b from here.
        let suspend = try await Run.binary(["control", "nightly", "suspend", "1", "--host", "ssh://hostb"], environment: client)
        #expect(suspend.status == 0, "\(suspend.stdout)\(suspend.stderr)")
        let suspended = try await Run.binary(["status", "nightly", "--json", "--host", "ssh://hostb"], environment: client)
        let state = try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(suspended.stdout.utf8)).first?.tasks.first?.state
        #expect(state == "suspended", "\(suspended.stdout)")
        let resume = try await Run.binary(["control", "nightly", "resume", "1", "--host", "ssh://hostb"], environment: client)
        #expect(resume.status == 0, "\(resume.stdout)\(resume.stderr)")

        // attach follows b's session as lines (no terminal here) until it is invalidated.
        let attach = try Run.spawn(["attach", "ssh://hostb/nightly", "--no-tui"], environment: client)
        server.openGate(gate)
        let wait = try await Run.binary(["wait", "nightly", "--host", "ssh://hostb"], environment: client)
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)")
        #expect(wait.stdout.contains("nightly: 1 task(s) completed, 0 failed"), "\(wait.stdout)")
        let size = (try? FileManager.default.attributesOfItem(atPath: out + "/70000")[.size] as? Int) ?? nil
        #expect(size == 70000)
        let invalidate = try await Run.binary(["control", "nightly", "invalidate", "--host", "ssh://hostb"], environment: client)
        #expect(invalidate.status == 0, "\(invalidate.stdout)\(invalidate.stderr)")
        let followed = await attach.wait()
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.stdout.contains("nightly:1 completed ok 200"), "\(followed.stdout)")
        withExtendedLifetime(ssh) {}
    }

    /// `--background ssh://host/NAME`: the tasks go to that host's daemon (started there by
    /// ssh), into a directory of that host's, and are watched there; `-i` lists are read here.
    @Test func aSubmissionThroughSSHRunsOnTheOtherHost() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let ssh = try await SSHServerRig.start(aliases: ["hosta"])
        let client = ssh.clientEnvironment
        let out = ssh.dir + "/hosta-out"
        let list = ssh.dir + "/list.txt"
        try "\(server.httpBase)/bytes/5000?seed=2\n".write(toFile: list, atomically: true, encoding: .utf8)
        let submit = try await Run.binary(["--background", "ssh://hosta/remote", "-o", out, "-i", list,
                                           "\(server.httpBase)/bytes/70000?seed=5"], environment: client)
        #expect(submit.status == 0, "\(submit.stderr)")
        #expect(submit.stdout.contains("remote:1 ") && submit.stdout.contains("remote:2 "), "\(submit.stdout)")
        let wait = try await Run.binary(["wait", "remote", "--host", "ssh://hosta"], environment: client)
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)")
        #expect(wait.stdout.contains("remote: 2 task(s) completed, 0 failed"), "\(wait.stdout)")
        #expect(FileManager.default.contents(atPath: out + "/70000") == Data(LoopbackServer.body(size: 70000, seed: 5)))
        #expect(FileManager.default.contents(atPath: out + "/5000") == Data(LoopbackServer.body(size: 5000, seed: 2)))
        // The session is host a's own: its user sees it there without ssh.
        let there = try await Run.binary(["status", "--json"], environment: ssh.hosts["hosta"]!)
        let sessions = try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(there.stdout.utf8))
        #expect(sessions.map(\.name) == ["remote"] && sessions.first?.tasks.count == 2, "\(there.stdout)")
        withExtendedLifetime(ssh) {}
    }

    /// The monitor over ssh, in a real terminal: the first watch is the connection `attach`
    /// checked the session with; a key goes to the other host's daemon; a daemon stopped
    /// there shows as gone and is not started again by the monitor's reconnections; q detaches
    /// naming the host.
    @Test func theMonitorAttachesThroughSSHAndKeysActThere() async throws {
        let binary = try #require(Binary.path)
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let ssh = try await SSHServerRig.start(aliases: ["hostb"])
        let hostB = ssh.hosts["hostb"]!
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/bytes/3000000?seed=8&gate=\(gate)&holdAfter=1000000"
        let submit = try await Run.binary(["--background", "m", "--request-timeout", "3600", "-o", ssh.dir + "/out", url], environment: hostB)
        #expect(submit.status == 0, "\(submit.stderr)")
        try await server.waitForGate(gate)
        let tmux = try await Self.attachInTmux(ssh, binary, "ssh://hostb/m")
        defer { tmux.kill() }
        var screen = try await tmux.waitFor { Tmux.row($0, "m:1")?.contains("running") == true }
        #expect(Tmux.row(screen, "m:1")?.contains("running") == true, "\(screen)")
        try await tmux.keys("s")
        screen = try await tmux.waitFor { Tmux.row($0, "m:1")?.contains("suspended") == true }
        #expect(Tmux.row(screen, "m:1")?.contains("suspended") == true, "\(screen)")
        #expect(try await Self.taskState(hostB, "m") == "suspended")
        let stop = try await Run.binary(["daemon", "stop"], environment: hostB)
        #expect(stop.status == 0, "\(stop.stdout)\(stop.stderr)")
        screen = try await tmux.waitFor { $0.contains("daemon gone") }
        #expect(screen.contains("daemon gone"), "\(screen)")
        // The reconnections ask with --no-start: host b's daemon stays stopped.
        let after = try await Run.binary(["daemon", "status"], environment: hostB)
        #expect(after.stdout.contains("no transfertop daemon is running"), "\(after.stdout)")
        try await tmux.keys("q")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        #expect(screen.contains("transfertop status m --host ssh://hostb"), "\(screen)")
        server.openGate(gate)
        withExtendedLifetime(ssh) {}
    }

    /// One monitor over two hosts (`attach ssh://hosta ssh://hostb`), in a real terminal: each
    /// row is named host/NAME, a key acts on the selected row's host only, and a host whose
    /// daemon is killed is marked gone while the other goes on, then watched again once it is
    /// back, its download restored and finished byte-exact.
    @Test func oneMonitorWatchesTwoHostsAndKeysGoToTheSelectedRowsHost() async throws {
        let binary = try #require(Binary.path)
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let ssh = try await SSHServerRig.start(aliases: ["hosta", "hostb"])
        let (hostA, hostB) = (ssh.hosts["hosta"]!, ssh.hosts["hostb"]!)
        let (gateA, gateB) = (UUID().uuidString, UUID().uuidString)
        defer { server.openGate(gateA); server.openGate(gateB) }
        for (env, name, gate) in [(hostA, "one", gateA), (hostB, "two", gateB)] {
            let url = "\(server.httpBase)/bytes/3000000?seed=8&gate=\(gate)&holdAfter=1000000"
            let submit = try await Run.binary(["--background", name, "--request-timeout", "3600", "-o", ssh.dir + "/" + name, url], environment: env)
            #expect(submit.status == 0, "\(submit.stderr)")
            try await server.waitForGate(gate)
        }
        let tmux = try await Self.attachInTmux(ssh, binary, "ssh://hosta ssh://hostb")
        defer { tmux.kill() }
        var screen = try await tmux.waitFor {
            Tmux.row($0, "hosta/one:1")?.contains("running") == true && Tmux.row($0, "hostb/two:1")?.contains("running") == true
        }
        #expect(Tmux.row(screen, "hostb/two:1")?.contains("running") == true, "\(screen)")

        // The second row is host b's: s suspends it there, and host a's task runs on.
        try await Self.suspendAndResumeHostB(tmux, hostA: hostA, hostB: hostB)

        // Host a's daemon is killed (-9) mid-download: its rows are marked gone, host b's are
        // not. Started again there, it restores the download, which ends byte-exact.
        try await Self.killHostADaemon(hostA, tmux)
        server.openGate(gateA)
        let start = try await Run.binary(["daemon", "start"], environment: hostA)
        #expect(start.status == 0, "\(start.stdout)\(start.stderr)")
        screen = try await tmux.waitFor { Tmux.row($0, "hosta/one:1")?.contains("completed") == true }
        #expect(!Self.sessionRow(screen, "hosta/one").contains("daemon gone"), "\(screen)")
        #expect(Tmux.row(screen, "hosta/one:1")?.contains("ok") == true, "\(screen)")
        #expect(FileManager.default.contents(atPath: ssh.dir + "/one/3000000") == Data(LoopbackServer.body(size: 3_000_000, seed: 8)))

        try await tmux.keys("q")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        #expect(screen.contains("detached from every session of hosta, every session of hostb"), "\(screen)")
        withExtendedLifetime(ssh) {}
    }

    /// A host ssh cannot reach, and addresses that are not ssh:// ones.
    @Test func unreachableHostsAndBadAddressesSayWhy() async throws {
        let ssh = try await SSHServerRig.start(aliases: ["hosta"])
        let unknown = try await Run.binary(["status", "--host", "ssh://nosuchalias.invalid"], environment: ssh.clientEnvironment)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("ssh://nosuchalias.invalid"), "\(unknown.stderr)")
        for (args, fragment) in [(["status", "--host", "ssh://-oProxyCommand=touch"], "not a plain name"),
                                 (["status", "--host", "ssh://hosta:0"], "not 1-65535"),
                                 (["status", "--host", "http://hosta"], "not an ssh:// address"),
                                 (["wait", "x", "--host", "ssh://hosta/x"], "without a /NAME"),
                                 (["attach", "ssh://hosta", "ssh://hostb", "--no-tui"], "in the monitor only"),
                                 (["attach", "ssh://hosta", "local/x", "--host", "ssh://hosta"], "--host names the host of one NAME"),
                                 (["attach", "ssh://hosta/x", "ssh://-bad"], "not a plain name"),
                                 (["--background", "ssh://hosta", "-o", "/tmp", "http://127.0.0.1:1/x"], "names the session after the host"),
                                 (["--background", "ssh://hosta/n", "http://127.0.0.1:1/x"], "name the directory on hosta with -o"),
                                 (["--background", "ssh://hosta/n", "-o", "here", "http://127.0.0.1:1/x"], "paths are hosta's"),
                                 (["--background", "ssh://hosta/n", "-o", "/tmp", "--cacert", "ca.pem", "http://127.0.0.1:1/x"],
                                  "--cacert must be an absolute path"),
                                 (["--background", "n", "--host", "ssh://hosta", "http://127.0.0.1:1/x"],
                                  "--background takes another host's daemon as ssh://HOST/NAME")] {
            let r = try await Run.binary(args, environment: ssh.clientEnvironment)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(fragment), "\(args): \(r.stderr)")
        }
        let password = try await Run.binary(["status", "--host", "ssh://me:s3cret@hosta"], environment: ssh.clientEnvironment)
        #expect(password.status == 2 && password.stderr.contains("no password in the address"), "\(password.stderr)")
        #expect(!password.stderr.contains("s3cret"))
        withExtendedLifetime(ssh) {}
    }

    /// `transfertop attach TARGETS` in a new tmux session (160 x 30) with this host's ssh client
    /// environment; the pane stays after it exits, showing `TT-EXITED <status>`.
    static func attachInTmux(_ ssh: SSHServerRig, _ binary: String, _ targets: String) async throws -> Tmux {
        let tmux = Tmux()
        let env = ssh.clientEnvironment.map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
        do {
            try await tmux.run(["new-session", "-d", "-s", "t", "-x", "160", "-y", "30",
                                "trap : INT; env TERM=xterm-256color LANG=C.UTF-8 \(env) \(binary) attach \(targets); echo TT-EXITED $?; sleep 3600"])
        } catch {
            tmux.kill()
            throw error
        }
        return tmux
    }

    /// Kills host a's daemon with SIGKILL: the monitor marks host a's session `daemon gone`,
    /// and not host b's.
    static func killHostADaemon(_ hostA: [String: String], _ tmux: Tmux) async throws {
        let pid = try #require(DaemonLock.holderPID(try DaemonPaths.standard(hostA).lock))
        kill(pid, SIGKILL)
        let screen = try await tmux.waitFor { sessionRow($0, "hosta/one").contains("daemon gone") }
        #expect(sessionRow(screen, "hosta/one").contains("daemon gone"), "\(screen)")
        #expect(!sessionRow(screen, "hostb/two").contains("daemon gone"), "\(screen)")
    }

    /// In a monitor over hosts a and b whose first row is `hosta/one:1`: `j` `s` suspends host b's
    /// task `two:1` there while host a's runs on (each host's own `status` says so), `r` resumes it.
    static func suspendAndResumeHostB(_ tmux: Tmux, hostA: [String: String], hostB: [String: String]) async throws {
        try await tmux.keys("j")
        try await tmux.keys("s")
        let screen = try await tmux.waitFor { Tmux.row($0, "hostb/two:1")?.contains("suspended") == true }
        #expect(Tmux.row(screen, "hostb/two:1")?.contains("suspended") == true, "\(screen)")
        #expect(try await taskState(hostB, "two") == "suspended")
        #expect(try await taskState(hostA, "one") == "running")
        try await tmux.keys("r")
        _ = try await tmux.waitFor { Tmux.row($0, "hostb/two:1")?.contains("running") == true }
        #expect(try await taskState(hostB, "two") == "running")
    }

    /// The state of session `name`'s first task, asked on the host whose environment is `env`.
    static func taskState(_ env: [String: String], _ name: String) async throws -> String? {
        let status = try await Run.binary(["status", name, "--json"], environment: env)
        return try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(status.stdout.utf8)).first?.tasks.first?.state
    }

    /// The monitor's session row of `name` (`host/NAME`), empty when the screen has none.
    static func sessionRow(_ screen: String, _ name: String) -> String {
        screen.split(separator: "\n").map(String.init).first { $0.contains("bg \(name)") } ?? ""
    }
}
