import Digest
import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferModel
@testable import TransferTopCLI
@testable import TransferTopDaemon
import TransferTopUI

/// The monitor on background sessions with real processes (DECISIONS 127-128): the
/// feed against a real daemon, then `transfertop attach` and a local run's monitor in tmux.
/// Each test has its own daemon in private XDG directories (`BackgroundDaemonTests.Rig`) and
/// waits for server-side gates and for what the screen or the daemon says, never for time.
@Suite(.serialized) struct BackgroundMonitorTests {
    typealias Rig = BackgroundDaemonTests.Rig

    /// Takes the feed's picture until `check` holds, through the suite's one `waitFor` (its
    /// deadline is the one sanitizer runs need); on expiry the test fails here, saying what the
    /// feed showed and said.
    static func until(_ feed: DaemonFeed, _ notes: Locked<[String]>, sourceLocation: SourceLocation = #_sourceLocation,
                      _ check: @escaping @Sendable ([SessionSnapshot]) -> Bool) async throws -> [SessionSnapshot] {
        let last = Locked<[SessionSnapshot]>([])
        do {
            try await waitFor("the feed's picture") {
                let now = feed.snapshots(now: Date())
                let new = feed.takeNotices()
                notes.withLock { $0 += new }
                last.withLock { $0 = now }
                return check(now)
            }
        } catch {
            let rows = last.withLock { $0 }.map { s in
                "\(s.name): " + s.tasks.map { "\($0.taskIdentifier) \($0.state) \($0.countOfBytesReceived)" }.joined(separator: ", ")
            }
            Issue.record("\(error); rows: \(rows); notes: \(notes.withLock { $0 }); gone: \(feed.isGone)", sourceLocation: sourceLocation)
        }
        return last.withLock { $0 }
    }

    static func json(_ rig: Rig, _ name: String) async throws -> [BackgroundTaskStatus] {
        let status = try await rig.run(["status", name, "--json"])
        return try JSONDecoder().decode([BackgroundSessionStatus].self, from: Data(status.stdout.utf8)).first?.tasks ?? []
    }

    @Test func theFeedFollowsTheDaemonSendsKeysAndSeesItGoAndComeBack() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/bytes/3000000?seed=5&gate=\(gate)&holdAfter=1000000"
        #expect(try await rig.run(["--background", "feed", "-o", rig.out, url]).status == 0)
        try await server.waitForGate(gate)

        let feed = DaemonFeed(paths: rig.paths, session: nil)
        feed.start()
        defer { feed.stop() }
        let notes = Locked<[String]>([])
        @Sendable func task(_ s: [SessionSnapshot]) -> TaskSnapshot? { s.first { $0.name == "feed" }?.tasks.first }
        var s = try await Self.until(feed, notes) { task($0)?.state == .running && task($0)?.countOfBytesReceived == 1_000_000 }
        let id = try #require(task(s)).id
        #expect(DaemonRows.owns(id.session) && id.task == 1)
        #expect(s.first?.kind == .background(identifier: "feed"))

        #expect(feed.route(.suspend(id)) == "asking the daemon: suspend feed:1…")
        s = try await Self.until(feed, notes) { task($0)?.state == .suspended }
        #expect(task(s)?.state == .suspended)
        _ = try await Self.until(feed, notes) { _ in notes.withLock { $0.contains("daemon, feed:1: suspend: 1 task(s)") } }
        #expect(notes.withLock { $0.contains("daemon, feed:1: suspend: 1 task(s)") }, "\(notes.withLock { $0 })")
        #expect(try await Self.json(rig, "feed").first?.state == "suspended")

        // kill -9: the rows stay, marked gone; a new daemon restores the task suspended.
        await rig.killDaemon()
        _ = try await Self.until(feed, notes) { _ in feed.isGone }
        #expect(feed.isGone)
        #expect(task(feed.snapshots(now: Date()))?.state == .suspended)
        #expect(try await rig.run(["daemon", "start"]).status == 0)
        s = try await Self.until(feed, notes) { _ in !feed.isGone && notes.withLock { $0.contains { $0.hasPrefix("the daemon is back") } } }
        #expect(!feed.isGone && task(s)?.state == .suspended, "\(notes.withLock { $0 })")
        #expect(notes.withLock { $0.contains { $0.hasPrefix("the daemon went away") } })

        server.openGate(gate)
        #expect(feed.route(.resume(id)) == "asking the daemon: resume feed:1…")
        s = try await Self.until(feed, notes) { task($0)?.state == .completed }
        let done = try #require(task(s))
        #expect(done.error == nil && done.statusCode == 200 && DisplayState(done) == .completed)
        #expect(BackgroundDaemonTests.sha(rig.out + "/3000000") == SHA256.hex(Data(LoopbackServer.body(size: 3_000_000, seed: 5))))
    }
}

extension BackgroundMonitorTests {
    /// A watch of a session the daemon does not have is refused; the feed says so (once per
    /// cause, not at every look) and shows nothing.
    @Test func watchingAnUnknownSessionSaysSo() async throws {
        let rig = try Rig()
        #expect(try await rig.run(["daemon", "start"]).status == 0)
        let feed = DaemonFeed(paths: rig.paths, session: "nosuch")
        feed.start()
        defer { feed.stop() }
        let notes = Locked<[String]>([])
        let said = "daemon: no background session named 'nosuch'"
        let s = try await Self.until(feed, notes) { _ in notes.withLock { $0.contains(said) } }
        #expect(notes.withLock { $0.contains(said) }, "\(notes.withLock { $0 })")
        #expect(s.isEmpty && !feed.isGone)
        // A refusal is not the daemon gone: the real reason is the last word.
        #expect(!notes.withLock { $0.contains { $0.hasPrefix("the daemon went away") } }, "\(notes.withLock { $0 })")
    }
}

/// The monitor in a tmux pane, on a daemon's session.
@Suite(.serialized) struct BackgroundMonitorTmuxTests {
    typealias Rig = BackgroundDaemonTests.Rig

    /// `transfertop ARGS` in the rig's private directories (never the user's daemon).
    static func invocation(_ rig: Rig, _ binary: String, _ args: String) -> String {
        let env = rig.env.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        return "env TERM=xterm-256color LANG=C.UTF-8 \(env) \(binary) \(args)"
    }

    static func command(_ rig: Rig, _ binary: String, _ args: String) -> String {
        // `trap : INT`: the pane's shell goes on after a C-c meant for transfertop (which gets
        // the default action back, as a trapped signal is not inherited).
        "trap : INT; cd \(rig.dir) && \(invocation(rig, binary, args)); echo TT-EXITED $?; sleep 3600"
    }

    @Test func attachShowsTheSessionSendsKeysToTheDaemonAndQOnlyDetaches() async throws {
        let binary = try #require(Binary.path)
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let tmux = Tmux()
        defer { tmux.kill() }
        let (g1, g2) = (UUID().uuidString, UUID().uuidString)
        let urls = ["\(server.httpBase)/bytes/3000000?seed=6&gate=\(g1)&holdAfter=1000000",
                    "\(server.httpBase)/bytes/2000000?seed=7&gate=\(g2)&holdAfter=500000"]
        let submit = try await rig.run(["--background", "m", "-o", rig.out] + urls)
        #expect(submit.status == 0, "\(submit.stderr)")
        try await server.waitForGate(g1)
        try await server.waitForGate(g2)

        // Attached twice: q ends the first, Ctrl-C the second (which waits for Enter, so the
        // first one's last words are on the screen until the test has read them).
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "200", "-y", "30",
                            Self.command(rig, binary, "attach m; echo TT-FIRST $?; read next; \(Self.invocation(rig, binary, "attach m"))")])
        var screen = try await tmux.waitFor { Tmux.row($0, "m:1")?.contains("running") == true && Tmux.row($0, "m:2") != nil }
        #expect(Tmux.row(screen, "m:1")?.contains("running") == true, "\(screen)")
        #expect(screen.contains("bg m") && screen.contains("background"), "\(screen)")
        #expect(screen.contains("q detach"), "\(screen)")

        // s on the selected task (m:1) goes to the daemon.
        try await tmux.keys("s")
        screen = try await tmux.waitFor { Tmux.row($0, "m:1")?.contains("suspended") == true }
        #expect(Tmux.row(screen, "m:1")?.contains("suspended") == true, "\(screen)")
        #expect(try await BackgroundMonitorTests.json(rig, "m").first?.state == "suspended")
        // The daemon's answer is on the status line for `statusLifetime` (8 s): it is looked
        // for first, before anything slow (a TSan `status --json` took longer than that, the
        // answer was gone and the wait ran out).
        try await tmux.keys("r")
        screen = try await tmux.waitFor { $0.contains("daemon, m:1: resume: 1 task(s)") }
        #expect(screen.contains("daemon, m:1: resume: 1 task(s)"), "\(screen)")
        screen = try await tmux.waitFor { Tmux.row($0, "m:1")?.contains("running") == true }
        #expect(Tmux.row(screen, "m:1")?.contains("running") == true, "\(screen)")
        #expect(try await BackgroundMonitorTests.json(rig, "m").first?.state == "running")
        // n is not the daemon's: the status line says so (pressed once the resume's answer is
        // in, or that answer could replace the refusal).
        try await tmux.keys("n")
        screen = try await tmux.waitFor { $0.contains("takes new tasks from the command line") }
        #expect(screen.contains("background session m takes new tasks from the command line"), "\(screen)")

        server.openGate(g1)
        screen = try await tmux.waitFor { Tmux.row($0, "m:1")?.contains("completed") == true }
        #expect(Tmux.row(screen, "m:1")?.contains("ok") == true, "\(screen)")

        // q detaches at once: no question, the shell is back, m:2 still runs in the daemon.
        try await tmux.keys("q")
        screen = try await tmux.waitFor { $0.contains("TT-FIRST") }
        #expect(screen.contains("detached from background session m; its tasks go on in the daemon") && screen.contains("TT-FIRST 0"), "\(screen)")
        var tasks = try await BackgroundMonitorTests.json(rig, "m")
        #expect(tasks.map(\.state) == ["completed", "running"], "\(tasks)")
        #expect(tasks.first?.succeeded == true)
        // Ctrl-C in the second monitor detaches as well.
        try await tmux.keys("Enter")
        screen = try await tmux.waitFor { Tmux.row($0, "m:2")?.contains("running") == true && !$0.contains("TT-FIRST") }
        #expect(Tmux.row(screen, "m:2")?.contains("running") == true, "\(screen)")
        try await tmux.keys("C-c")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        tasks = try await BackgroundMonitorTests.json(rig, "m")
        #expect(tasks.map(\.state) == ["completed", "running"], "\(tasks)")
        server.openGate(g2)
        let wait = try await rig.run(["wait", "m"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)")
    }

    @Test func aLocalRunsMonitorListsTheBackgroundSessionsAndSeesTheDaemonGoAndComeBack() async throws {
        let binary = try #require(Binary.path)
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let tmux = Tmux()
        defer { tmux.kill() }
        let (bgGate, localGate) = (UUID().uuidString, UUID().uuidString)
        let bgURL = "\(server.httpBase)/bytes/2000000?seed=8&gate=\(bgGate)&holdAfter=500000"
        #expect(try await rig.run(["--background", "side", "-o", rig.out, bgURL]).status == 0)
        try await server.waitForGate(bgGate)

        let localURL = "\(server.httpBase)/bytes/2000000?seed=9&gate=\(localGate)&holdAfter=500000"
        // An hour of idle time, as `Rig.run` gives the submission: held while the daemon goes
        // and comes back (DECISIONS 167).
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "200", "-y", "30",
                            Self.command(rig, binary, "--request-timeout 3600 -o \(rig.dir)/local '\(localURL)'")])
        try await server.waitForGate(localGate)
        // The server holds both; the screen shows it from the next frame on (waited for, as a
        // frame drawn before the local task left the queue says "queued").
        var screen = try await tmux.waitFor {
            Tmux.row($0, "1.1")?.contains("running") == true && Tmux.row($0, "side:1")?.contains("running") == true
        }
        #expect(Tmux.row(screen, "1.1")?.contains("running") == true, "\(screen)")
        #expect(Tmux.row(screen, "side:1")?.contains("running") == true, "\(screen)")
        #expect(screen.split(separator: "\n").contains { $0.contains("bg side") && $0.contains("background") }, "\(screen)")

        // The daemon killed: the rows stay, marked; started again, the monitor reconnects.
        await rig.killDaemon()
        screen = try await tmux.waitFor { $0.contains("daemon gone") }
        #expect(screen.split(separator: "\n").contains { $0.contains("bg side") && $0.contains("daemon gone") }, "\(screen)")
        #expect(try await rig.run(["daemon", "start"]).status == 0)
        screen = try await tmux.waitFor { !$0.contains("daemon gone") && Tmux.row($0, "side:1") != nil }
        #expect(!screen.contains("daemon gone") && Tmux.row(screen, "side:1") != nil, "\(screen)")

        // The local run ends as always; the background task is left to the daemon.
        server.openGate(localGate)
        screen = try await tmux.waitFor { Tmux.row($0, "1.1")?.contains("completed") == true }
        try await tmux.keys("q")
        screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        #expect(try await BackgroundMonitorTests.json(rig, "side").first?.state != "completed")
        server.openGate(bgGate)
        let wait = try await rig.run(["wait", "side"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)")
    }
}

extension BackgroundMonitorTests {
    /// A local run's monitor lists the live sessions, not every session the journal ever had:
    /// an invalidated one whose tasks are all finished stays out; `attach NAME` still sees it.
    /// A refusal is not "daemon gone".
    @Test func aLocalMonitorListsLiveSessionsOnly() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        #expect(try await rig.run(["--background", "old", "-o", rig.out, "\(server.httpBase)/bytes/100?seed=1"]).status == 0)
        #expect(try await rig.run(["wait", "old"]).status == 0)
        #expect(try await rig.run(["control", "old", "invalidate"]).status == 0)
        let gate = UUID().uuidString
        #expect(try await rig.run(["--background", "new", "-o", rig.out + "/n", "\(server.httpBase)/bytes/300000?seed=2&gate=\(gate)&holdAfter=100000"]).status == 0)
        try await server.waitForGate(gate)

        let feed = DaemonFeed(paths: rig.paths, session: nil)
        feed.start()
        defer { feed.stop() }
        let notes = Locked<[String]>([])
        let s = try await Self.until(feed, notes) { $0.first { $0.name == "new" }?.tasks.first?.countOfBytesReceived == 100_000 }
        #expect(s.map(\.name) == ["new"], "\(s.map(\.name))")

        let one = DaemonFeed(paths: rig.paths, session: "old")
        one.start()
        defer { one.stop() }
        let o = try await Self.until(one, notes) { $0.first?.name == "old" }
        #expect(o.first?.state == .invalidated && o.first?.tasks.first?.state == .completed)
        server.openGate(gate)
        #expect(try await rig.run(["wait", "new"]).status == 0)
        #expect(!feed.isGone && !one.isGone)
    }
}
