import BackgroundJournal
import BackgroundWire
import Digest
import Foundation
import LoopbackServer
import TestSupport
import TransferModel
import Testing
@testable import TransferTopCLI
@testable import TransferTopDaemon

/// Library background sessions with real processes: `transferbench background` is an app using a
/// TransferKit background session; it is killed with SIGKILL and started again, and the daemon
/// (started on demand by the library from the `transfertop` beside it) carries the downloads.
@Suite(.serialized) struct BackgroundLibraryTests {
    typealias Rig = BackgroundDaemonTests.Rig

    /// `transferbench background IDENTIFIER ARGS...` with an hour of idle time: the tests hold
    /// downloads at server gates, and the daemon keeps the session's time-out (DECISIONS 167).
    func bench(_ rig: Rig, _ args: [String]) throws -> Spawned {
        guard let path = BuiltExecutable.path("transferbench") else { throw TestFailure("transferbench not built") }
        guard let identifier = args.first else { throw TestFailure("no identifier") }
        return try Run.spawn(["background", identifier, "--request-timeout", "3600"] + args.dropFirst(),
                             environment: rig.env, executable: path)
    }

    func lines(_ r: RunResult) -> [String] { r.stdout.split(separator: "\n").map(String.init) }

    func journalEvents(_ rig: Rig, _ session: String) throws -> [JournalEvent] {
        let (journal, _) = try Journal.open(at: rig.paths.journal)
        defer { try? journal.close() }
        return try journal.events(session: session, after: 0)
    }

    /// The app dies while the daemon downloads; the next start of the app gets the file and
    /// the completion, in order, once; the start after that gets nothing.
    @Test func aKilledAppGetsTheMissedCompletionOnceWhenItComesBack() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/bytes/3000?seed=5&headGate=\(gate)"
        let first = try bench(rig, ["app.kill", url])
        try await server.waitForGate(gate)
        first.signal(SIGKILL)
        let killed = await first.wait()
        #expect(lines(killed) == ["restored 0 unfinished 0", "ready", "resumed \(url)"], "\(killed.stdout)\(killed.stderr)")
        server.openGate(gate)
        // The daemon finishes it with nobody listening (`wait` follows the journal).
        let wait = try await rig.run(["wait", "app.kill"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)")
        let second = try await bench(rig, ["app.kill"]).wait()
        let sha = SHA256.hex(Data(LoopbackServer.body(size: 3000, seed: 5)))
        // Unfinished 0 or 1: the completion may reach the task before `allTasks` is read.
        #expect(lines(second).first?.hasPrefix("restored 1 unfinished ") == true, "\(second.stdout)\(second.stderr)")
        #expect(lines(second).dropFirst() == ["ready", "finished \(url) sha256=\(sha) bytes=3000", "complete \(url) error=nil resume=0", "done"],
                "\(second.stdout)\(second.stderr)")
        let third = try await bench(rig, ["app.kill"]).wait()
        #expect(lines(third) == ["restored 0 unfinished 0", "ready", "done"], "\(third.stdout)\(third.stderr)")
        // Delivered to the library, the events are pruned; the file went after the delegate.
        #expect(try journalEvents(rig, "app.kill").isEmpty)
        let dir = LibraryWire.directory(rig.paths, session: "app.kill")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir)) == [])
    }

    /// The session's `timeoutIntervalForRequest` is the daemon's transfer's too: a download
    /// whose answer is held times out after it, as in a foreground session (the daemon's own
    /// default is 60 s).
    @Test func theSessionsRequestTimeOutReachesTheDaemon() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        guard let path = BuiltExecutable.path("transferbench") else { throw TestFailure("transferbench not built") }
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/bytes/3000?headGate=\(gate)"
        let r = try await Run.spawn(["background", "app.timeout", "--request-timeout", "1", url],
                                    environment: rig.env, executable: path).wait()
        server.openGate(gate)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(lines(r).contains("complete \(url) error=timedOut resume=0 message=no data for 1 s (timeoutIntervalForRequest)"),
                "\(r.stdout)\(r.stderr)")
    }

    /// Cancelled with resume data while the app is away: the error it finds when it comes back
    /// carries the resume data.
    @Test func aCancellationWhileTheAppIsAwayComesBackWithResumeData() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        server.setFile("big.bin", size: 300_000, seed: 8)  // validators: resumable
        let gate = UUID().uuidString
        // Past 64 KiB: below, the bytes are still in memory, with no partial file to resume.
        let url = "\(server.httpBase)/files/big.bin?gate=\(gate)&holdAfter=100000"
        let first = try bench(rig, ["app.resume", url])
        try await server.waitForGate(gate)
        let records = rig.env["XDG_STATE_HOME"]! + "/transfertop/resume"
        try await waitFor("the crash-recovery record") {
            ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).contains { $0.hasSuffix(".resume") }
        }
        first.signal(SIGKILL)
        _ = await first.wait()
        let control = try await rig.run(["control", "app.resume", "cancel-with-resume-data"])
        #expect(control.status == 0, "\(control.stdout)\(control.stderr)")
        server.openGate(gate)
        _ = try await rig.run(["wait", "app.resume"])
        let saved = rig.dir + "/resume.data"
        let second = try await bench(rig, ["app.resume", "--save-resume", saved]).wait()
        let out = lines(second)
        #expect(out.first?.hasPrefix("restored 1 ") == true && out.last == "done", "\(second.stdout)\(second.stderr)")
        let complete = try #require(out.first { $0.hasPrefix("complete ") })
        #expect(complete.hasPrefix("complete \(url) error=cancelled resume="), "\(complete)")
        #expect(!complete.contains("resume=0 "), "\(complete)")
        #expect(!out.contains { $0.hasPrefix("finished ") })
        // downloadTask(withResumeData:) in the background session: the daemon continues the
        // partial file it kept (a Range request), and the file is whole.
        let before = server.stats.requests.count
        let third = try await bench(rig, ["app.resume", "--resume-from", saved]).wait()
        let sha = SHA256.hex(Data(LoopbackServer.body(size: 300_000, seed: 8)))
        #expect(lines(third).suffix(3) == ["finished \(url) sha256=\(sha) bytes=300000", "complete \(url) error=nil resume=0", "done"],
                "\(third.stdout)\(third.stderr)")
        let ranges = server.stats.requests.dropFirst(before).compactMap { r in r.headers.first { $0.name.lowercased() == "range" }?.value }
        #expect(ranges.count == 1 && ranges.first?.hasPrefix("bytes=") == true && ranges.first != "bytes=0-", "\(ranges)")
    }

    /// URLSession raises for a data task in a background session; TransferKit fails it.
    @Test func aDataTaskInABackgroundSessionFailsClearly() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let r = try await bench(rig, ["app.data", "--data", "\(server.httpBase)/bytes/10"]).wait()
        let out = lines(r)
        // "resumed" and "complete" in either order: the task fails as it is resumed.
        #expect(out.count == 5 && out.contains { $0.hasPrefix("complete \(server.httpBase)/bytes/10 error=invalidRequest resume=0") }, "\(r.stdout)")
        #expect(r.stdout.contains("a background session runs download tasks and uploads from a file only"))
        // A session that never needed the daemon made none of its directories (checked before
        // `rig.daemonPID`, whose paths make them).
        #expect(!FileManager.default.fileExists(atPath: rig.env["XDG_RUNTIME_DIR"]! + "/transfertop"))
        #expect(!FileManager.default.fileExists(atPath: rig.env["XDG_STATE_HOME"]! + "/transfertop/background"))
        #expect(rig.daemonPID == nil, "a data task started a daemon")
    }

    /// The password in the URL and a Cookie header reach the server (the download succeeds)
    /// and nothing the daemon writes.
    @Test func credentialsOfALibraryDownloadNeverReachTheDaemonsFiles() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let secret = AuthRoutes.password
        let cookie = "session=cookie-\(UUID().uuidString)"
        let base = server.httpBase.replacingOccurrences(of: "://", with: "://\(AuthRoutes.user):\(secret)@")
        let r = try await bench(rig, ["app.secret", "--header", "Cookie: \(cookie)", "\(base)/auth/basic"]).wait()
        #expect(r.stdout.contains("error=nil"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("finished "), "\(r.stdout)")
        let basic = Data("\(AuthRoutes.user):\(secret)".utf8).base64EncodedString()
        let files = FileManager.default.enumerator(atPath: rig.dir)?.allObjects as? [String] ?? []
        #expect(files.contains { $0.hasSuffix("background.sqlite") })
        for name in files {
            guard let bytes = FileManager.default.contents(atPath: rig.dir + "/" + name) else { continue }
            for needle in [secret, basic, cookie] {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(name) holds a secret")
            }
        }
    }

    /// Invalidation ends the daemon's session as well.
    @Test func invalidatingTheSessionEndsItInTheDaemon() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let r = try await bench(rig, ["app.end", "--invalidate", "\(server.httpBase)/bytes/100"]).wait()
        #expect(lines(r).suffix(2) == ["invalid", "done"], "\(r.stdout)\(r.stderr)")
        let status = try await rig.run(["status", "app.end", "--json"])
        let sessions = try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(status.stdout.utf8))
        #expect(sessions.first?.invalidated == true, "\(status.stdout)")
        #expect(try journalEvents(rig, "app.end").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: LibraryWire.directory(rig.paths, session: "app.end")))
    }

    /// The library writes and reads the daemon's messages through its own mirror enums.
    @Test func theLibrarysEnvelopesAreTheDaemonsMessages() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // the same JSON whatever order the keys come in
        let requests: [LibraryEnvelope] = [
            .hello(version: LibraryWire.helloVersion), .library(.attach(session: "a")),
            .library(.download(session: "a", LibraryDownload(url: "http://x/", headers: ["A: b"]))),
            .library(.control(session: "a", task: 3, action: "suspend")), .library(.acknowledge(session: "a", through: 9)),
        ]
        for r in requests {
            let daemon = try JSONDecoder().decode(DaemonRequest.self, from: JSONEncoder().encode(r))
            #expect(try encoder.encode(daemon) == encoder.encode(r))
        }
        let replies: [DaemonReply] = [
            .hello(version: "v", pid: 1, journal: "j"), .failure("no"), .library(.ok), .library(.submitted(task: 4)),
            .library(.attached(tasks: [LibraryTask(number: 1, url: "u", state: "running", bytesReceived: 2, bytesExpected: nil)], through: 3, asOf: 4)),
            .library(.event(LibraryEvent(seq: 5, kind: "state", task: nil, error: "e", resumeData: Data([1, 2])))),
        ]
        for r in replies {
            let library = try JSONDecoder().decode(LibraryReplyEnvelope.self, from: JSONEncoder().encode(r))
            #expect(try encoder.encode(library) == encoder.encode(r))
        }
    }
}

extension BackgroundLibraryTests {
    /// The daemon is killed while the app waits for its download: the app starts a new one,
    /// which restores the task from the journal, and the app gets the file.
    @Test func anAppWhoseDaemonDiesStartsANewOneAndGetsItsFile() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        server.setFile("d.bin", size: 100_000, seed: 4)
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/files/d.bin?gate=\(gate)&holdAfter=30000"
        let app = try bench(rig, ["app.daemon", url])
        try await server.waitForGate(gate)
        let first = try #require(rig.daemonPID)
        await rig.killDaemon()
        server.openGate(gate)
        let r = await app.wait()
        let sha = SHA256.hex(Data(LoopbackServer.body(size: 100_000, seed: 4)))
        #expect(lines(r) == ["restored 0 unfinished 0", "ready", "resumed \(url)", "finished \(url) sha256=\(sha) bytes=100000", "complete \(url) error=nil resume=0", "done"],
                "\(r.stdout)\(r.stderr)")
        #expect(rig.daemonPID != nil && rig.daemonPID != first)
    }

    /// DECISIONS 133: a finished task leaves one event, its completion, whatever it went through.
    @Test func aFinishedTaskLeavesOneEventInTheJournal() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        #expect(try await rig.run(["--background", "p1", "-o", rig.out, "\(server.httpBase)/bytes/100?headGate=\(gate)"]).status == 0)
        try await server.waitForGate(gate)
        #expect(try await rig.run(["control", "p1", "suspend"]).status == 0)
        #expect(try await rig.run(["control", "p1", "resume"]).status == 0)
        server.openGate(gate)
        #expect(try await rig.run(["wait", "p1"]).status == 0)
        let events = try journalEvents(rig, "p1").filter { $0.task != nil }
        #expect(events.count == 1, "\(events.map(\.kind))")
        let last = try JSONDecoder().decode(BackgroundEvent.self, from: try #require(events.first).payload)
        #expect(last.task?.state == "completed")
    }
}

extension BackgroundLibraryTests {
    /// A download that has passed 64 KiB (a partial file, so resumable) held at a gate, the
    /// daemon's crash-recovery record written: returns the app process.
    func heldDownload(_ rig: Rig, _ server: LoopbackServer, _ session: String, file: String, gate: String,
                      options: [String] = []) async throws -> (Spawned, String) {
        server.setFile(file, size: 300_000, seed: 6)
        let url = "\(server.httpBase)/files/\(file)?gate=\(gate)&holdAfter=100000"
        let app = try bench(rig, [session] + options + [url])
        try await server.waitForGate(gate)
        let records = rig.env["XDG_STATE_HOME"]! + "/transfertop/resume"
        try await waitFor("the crash-recovery record") {
            ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).contains { $0.hasSuffix(".resume") }
        }
        return (app, url)
    }

    /// Suspended while the app was away: the app made again lists it in `allTasks`, resumes it
    /// (a control to the daemon) and gets the file.
    @Test func aSuspendedTaskIsListedOnReturnAndTheAppResumesIt() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let (first, url) = try await heldDownload(rig, server, "app.susp", file: "s.bin", gate: gate)
        first.signal(SIGKILL)
        _ = await first.wait()
        #expect(try await rig.run(["control", "app.susp", "suspend"]).status == 0)
        server.openGate(gate)
        let second = try await bench(rig, ["app.susp", "--resume-restored"]).wait()
        let sha = SHA256.hex(Data(LoopbackServer.body(size: 300_000, seed: 6)))
        #expect(lines(second) == ["restored 1 unfinished 1", "ready", "finished \(url) sha256=\(sha) bytes=300000",
                                  "complete \(url) error=nil resume=0", "done"], "\(second.stdout)\(second.stderr)")
    }

    /// The app's own cancel(byProducingResumeData:) goes to the daemon; the handler and the
    /// error get the daemon's resume data.
    @Test func theAppsCancelProducingResumeDataGetsTheDaemonsResumeData() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let (app, url) = try await heldDownload(rig, server, "app.cancel", file: "c.bin", gate: UUID().uuidString)
        app.signal(SIGUSR1)
        let r = await app.wait()
        let out = lines(r)
        let handed = try #require(out.first { $0.hasPrefix("resumeData ") }, "\(r.stdout)\(r.stderr)")
        let count = try #require(Int(handed.dropFirst("resumeData ".count)))
        #expect(count > 0)
        #expect(out.suffix(3) == [handed, "complete \(url) error=cancelled resume=\(count) message=cancelled", "done"], "\(r.stdout)")
    }

    /// The daemon's progress checkpoints reach the app as didWriteData, never going back.
    @Test func progressReachesTheAppAsDidWriteData() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let (app, url) = try await heldDownload(rig, server, "app.progress", file: "p.bin", gate: gate, options: ["--progress"])
        // The held download's 100,000 bytes are checkpointed and pushed while it waits.
        try await waitFor("progress of the held bytes") {
            let out = (try? String(contentsOfFile: app.outPath, encoding: .utf8)) ?? ""
            return out.split(separator: "\n").contains { $0.hasPrefix("progress ") && (Int($0.split(separator: " ")[1]) ?? 0) >= 100_000 }
        }
        server.openGate(gate)
        let r = await app.wait()
        let out = lines(r)
        let totals = out.filter { $0.hasPrefix("progress ") }.compactMap { Int($0.split(separator: " ")[1]) }
        #expect(!totals.isEmpty && totals == totals.sorted() && totals.allSatisfy { $0 <= 300_000 }, "\(r.stdout)")
        #expect(out.contains { $0.hasPrefix("progress ") && $0.contains(" of 300000 ") }, "\(r.stdout)")
        #expect(out.suffix(2) == ["complete \(url) error=nil resume=0", "done"], "\(r.stdout)")
    }
}

extension BackgroundLibraryTests {
    /// No daemon and no transfertop to start one from; an identifier the daemon cannot name a
    /// session by: the task fails with a message, the app goes on.
    @Test func withoutADaemonToStartOrWithABadIdentifierTheTaskFailsClearly() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        guard let path = BuiltExecutable.path("transferbench") else { throw TestFailure("transferbench not built") }
        let url = "\(server.httpBase)/bytes/10"
        let none = try await Run.spawn(["background", "app.none", url], environment: rig.env.merging(
            ["TRANSFERTOP_EXECUTABLE": rig.dir + "/no-such-transfertop"]) { $1 }, executable: path).wait()
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.contains("complete \(url) error=cannotConnectToHost")
                && none.stdout.contains("no transfertop executable was found"), "\(none.stdout)")
        #expect(rig.daemonPID == nil)
        let bad = try await bench(rig, ["bad/identifier", url]).wait()
        #expect(bad.status == 0, "\(bad.stderr)")
        #expect(bad.stdout.contains("complete \(url) error=cannotConnectToHost")
                && bad.stdout.contains("1-64 letters, digits"), "\(bad.stdout)")
    }
}

extension BackgroundLibraryTests {
    /// invalidateAndCancel() cancels the daemon's download, then ends the daemon's session.
    @Test func invalidateAndCancelCancelsInTheDaemonAndEndsItsSession() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let (app, url) = try await heldDownload(rig, server, "app.kill.all", file: "k.bin", gate: UUID().uuidString,
                                                options: ["--signal-invalidates", "--invalidate"])
        app.signal(SIGUSR1)
        let r = await app.wait()
        let out = lines(r)
        #expect(out.contains { $0.hasPrefix("complete \(url) error=cancelled ") }, "\(r.stdout)\(r.stderr)")
        #expect(out.suffix(2) == ["invalid", "done"], "\(r.stdout)")
        let status = try await rig.run(["status", "app.kill.all", "--json"])
        let sessions = try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(status.stdout.utf8))
        #expect(sessions.first?.invalidated == true && sessions.first?.tasks.allSatisfy { $0.state == "completed" } == true, "\(status.stdout)")
    }
}

extension BackgroundLibraryTests {
    /// uploadTask(with:fromFile:) in a background session: the daemon PUTs the file.
    @Test func anUploadFromAFileRunsInTheDaemon() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let file = rig.dir + "/up.bin"
        let body = Data(LoopbackServer.body(size: 70_000, seed: 2))
        #expect(FileManager.default.createFile(atPath: file, contents: body))
        let url = "\(server.httpBase)/echo"
        let before = server.stats.requests.count
        let r = try await bench(rig, ["app.up", "--upload", file, url]).wait()
        #expect(lines(r).suffix(2) == ["complete \(url) error=nil resume=0", "done"], "\(r.stdout)\(r.stderr)")
        let puts = server.stats.requests.dropFirst(before).filter { $0.method == "PUT" }
        #expect(puts.map(\.bodyBytesReceived) == [70_000])
        #expect(FileManager.default.contents(atPath: file) == body, "the app's file is left as it was")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: LibraryWire.directory(rig.paths, session: "app.up"))) == [])
    }
}

extension BackgroundLibraryTests {
    /// Review finding 2: a name is the CLI's or one app's. An app with the identifier of a
    /// `--background` session is refused (it would take the CLI's tasks, delete their files
    /// after its delegate, and end the session); the CLI is refused an app's identifier.
    @Test func theCLIAndAnAppNeverShareABackgroundSession() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let url = "\(server.httpBase)/bytes/100?seed=3"
        let cli = try await rig.run(["--background", "shared", "-o", rig.out, url])
        #expect(cli.status == 0, "\(cli.stdout)\(cli.stderr)")
        let waited = try await rig.run(["wait", "shared"])
        #expect(waited.status == 0, "\(waited.stdout)\(waited.stderr)")
        let placed = try FileManager.default.contentsOfDirectory(atPath: rig.out)
        #expect(!placed.isEmpty)
        let app = try await bench(rig, ["shared", url]).wait()
        #expect(app.stdout.contains("complete \(url) error=cannotConnectToHost")
                && app.stdout.contains("holds transfertop --background submissions"), "\(app.stdout)\(app.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: rig.out) == placed)
        let status = try await rig.run(["status", "shared", "--json"])
        let sessions = try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(status.stdout.utf8))
        #expect(sessions.first?.invalidated == false, "\(status.stdout)")

        let own = try await bench(rig, ["app.own", url]).wait()
        #expect(own.stdout.contains("complete \(url) error=nil"), "\(own.stdout)\(own.stderr)")
        let refused = try await rig.run(["--background", "app.own", "-o", rig.out, url])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("is a TransferKit app's background session"), "\(refused.stdout)\(refused.stderr)")
    }
}
