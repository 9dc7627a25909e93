#if OpenTelemetry
import BackgroundWire
import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferModel
@testable import TransferTopDaemon

extension SSHRemoteTests {
    /// All of it from one terminal: two daemons, each started on its host by ssh with
    /// `TRANSFERTOP_OTLP` (sent as the rig sends each host's directories) and given the
    /// submission's `--csv`; one monitor over both; a task suspended and resumed on host b;
    /// host a's daemon killed (-9), started again through ssh and its download continued from
    /// its durable offset to a byte-exact file; then each task found in the OTLP receiver as
    /// one trace under its session's name, its hops and their phases those of the CSV its
    /// daemon wrote (`OTLPExportTests.check`). Host a's first daemon died before its task
    /// finished, so neither its CSV nor its traces hold the killed hop: both are the restored
    /// run's, one hop from the offset.
    @Test func twoHostsInOneMonitorEndAsTracesMatchingTheirCSVs() async throws {
        let binary = try #require(Binary.path)
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let collector = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: collector) }
        let receiver = try await OTLPReceiver.start(writingTo: collector + "/received.jsonl")
        let ssh = try await SSHServerRig.start(aliases: ["hosta", "hostb"], sending: ["TRANSFERTOP_OTLP": receiver.url])
        let client = ssh.clientEnvironment
        let (hostA, hostB) = (ssh.hosts["hosta"]!, ssh.hosts["hostb"]!)
        let (gateA, gateB) = (UUID().uuidString, UUID().uuidString)
        defer { server.openGate(gateA); server.openGate(gateB) }
        let (size, k) = (3_000_000, 1_000_000)
        // `/files/` answers ranges and has validators: a download of it can be continued.
        // Each response holds after k bytes of its own body until its gate opens.
        for (alias, name, gate) in [("hosta", "one", gateA), ("hostb", "two", gateB)] {
            server.setFile("\(name).bin", size: size, seed: 8)
            let url = "\(server.httpBase)/files/\(name).bin?gate=\(gate)&holdAfter=\(k)"
            // Submitted from here: `dial-stdio` starts each daemon on its host, in the
            // environment sshd gave the session.
            let submit = try await Run.binary(["--background", "ssh://\(alias)/\(name)", "--request-timeout", "3600",
                                               "-o", ssh.dir + "/" + name, "--csv", ssh.dir + "/\(name).csv", url], environment: client)
            #expect(submit.status == 0, "\(submit.stderr)")
            try await server.waitForGate(gate)
        }
        func exportingSaid(_ env: [String: String]) throws -> Int {
            let log = (try? String(contentsOfFile: try DaemonPaths.standard(env).log, encoding: .utf8)) ?? ""
            return log.components(separatedBy: "exporting each task as a trace (TRANSFERTOP_OTLP)").count - 1
        }
        #expect(try exportingSaid(hostA) == 1 && exportingSaid(hostB) == 1)

        let tmux = try await Self.attachInTmux(ssh, binary, "ssh://hosta ssh://hostb")
        defer { tmux.kill() }
        // Live metrics from both hosts: each row reaches the k bytes its response holds at.
        let held = "977 KiB/2.9 MiB"
        var screen = try await tmux.waitFor {
            [Tmux.row($0, "hosta/one:1"), Tmux.row($0, "hostb/two:1")].allSatisfy { $0?.contains("running") == true && $0?.contains(held) == true }
        }
        #expect(Tmux.row(screen, "hosta/one:1")?.contains(held) == true && Tmux.row(screen, "hostb/two:1")?.contains(held) == true, "\(screen)")

        // Host b's row: suspended there and resumed, host a's task running on.
        try await Self.suspendAndResumeHostB(tmux, hostA: hostA, hostB: hostB)

        // Host a's daemon killed once its resume record holds the k bytes on disk; started
        // again through ssh (its environment sshd's again), it continues the download there.
        try await waitFor("host a's resume record at \(k)") { Self.recordedOffset(hostA) == Int64(k) }
        try await Self.killHostADaemon(hostA, tmux)
        server.openGate(gateA)
        let again = try await Run.binary(["status", "one", "--host", "ssh://hosta"], environment: client)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(try exportingSaid(hostA) == 2)
        screen = try await tmux.waitFor { Tmux.row($0, "hosta/one:1")?.contains("completed") == true }
        #expect(!Self.sessionRow(screen, "hosta/one").contains("daemon gone"), "\(screen)")
        #expect(Tmux.row(screen, "hosta/one:1")?.contains("ok") == true, "\(screen)")
        server.openGate(gateB)
        screen = try await tmux.waitFor { Tmux.row($0, "hostb/two:1")?.contains("completed") == true }
        #expect(Tmux.row(screen, "hostb/two:1")?.contains("ok") == true, "\(screen)")
        try await tmux.keys("q")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        for name in ["one", "two"] {
            #expect(FileManager.default.contents(atPath: ssh.dir + "/\(name)/\(name).bin") == Data(LoopbackServer.body(size: size, seed: 8)))
        }
        let ranges = server.stats.requests.filter { $0.path.hasPrefix("/files/one.bin") }.map { $0.header("Range") }
        #expect(ranges == [nil, "bytes=\(k)-"], "host a's download was not continued from its offset: \(ranges)")

        // `wait` returns once the session's runner is gone, so its CSV is written; `daemon stop`
        // sends the spans the daemon still holds before it exits.
        for (alias, name, env) in [("hosta", "one", hostA), ("hostb", "two", hostB)] {
            let wait = try await Run.binary(["wait", name, "--host", "ssh://\(alias)"], environment: client)
            #expect(wait.status == 0 && wait.stdout.contains("\(name): 1 task(s) completed, 0 failed"), "\(wait.stdout)\(wait.stderr)")
            let stop = try await Run.binary(["daemon", "stop"], environment: env)
            #expect(stop.status == 0, "\(stop.stdout)\(stop.stderr)")
        }
        let spans = try receiver.received().filter { $0.type == "span" }
        await receiver.stop()
        let roots = spans.filter { ($0.parent_span_id ?? "").isEmpty }
        #expect(roots.count == 2, "\(roots.map { $0.attributes ?? [:] })")
        for (name, offset) in [("one", String(k)), ("two", "")] {
            let rows = try CSVRead.records(String(contentsOfFile: ssh.dir + "/\(name).csv", encoding: .utf8))
            let header = try #require(rows.first)
            let csvRows = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
            // One hop each: b's suspension paused its transfer, a's restored run asked once.
            #expect(csvRows.count == 1 && csvRows.allSatisfy { $0["session"] == name }, "\(csvRows)")
            #expect(csvRows.first?["resume_offset_bytes"] == offset, "\(csvRows)")
            // One trace per task, named for the session it was submitted to.
            let mine = roots.filter { $0.attributes?["transfertop.session"] == .string(name) }
            #expect(mine.count == 1, "\(name): \(roots.map { $0.attributes ?? [:] })")
            let root = try #require(mine.first)
            #expect(root.attributes?["transfertop.hops"] == .int(Int64(csvRows.count)))
            #expect(root.attributes?["http.response.status_code"] == csvRows.last.flatMap { Int64($0["status"] ?? "") }.map { .int($0) })
            for row in csvRows { try OTLPExportTests.check(row, spans: spans, roots: mine, port: server.httpPort) }
        }
        withExtendedLifetime(ssh) {}
    }

    /// The offset of the one resume record on the host whose environment is `env`.
    static func recordedOffset(_ env: [String: String]) -> Int64? {
        let dir = (env["XDG_STATE_HOME"] ?? "") + "/transfertop/resume"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".resume") }
        guard names.count == 1, let data = FileManager.default.contents(atPath: dir + "/" + names[0]) else { return nil }
        return (try? ResumeData(decoding: data))?.bytesReceived
    }
}
#endif
