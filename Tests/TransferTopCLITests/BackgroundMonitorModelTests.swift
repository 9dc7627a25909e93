import BackgroundWire
import Foundation
import MonitorFixtures
import TestSupport
import Testing
import TransferModel
@testable import TransferTopCLI
@testable import TransferTopDaemon
@testable import TransferTopUI

/// The daemon's sessions in the monitor, without a terminal or a daemon (DECISIONS 127): the
/// status turned into rows, drawn by the one renderer beside local rows, and the keys on them
/// turned into effects the feed sends to the daemon, or refusals that say why.
@Suite struct BackgroundMonitorModelTests {
    static let url = "http://127.0.0.1:9/bytes/100"

    static func statuses(running: Int64 = 40) -> [BackgroundSessionStatus] {
        [BackgroundSessionStatus(name: "nightly", invalidated: false, tasks: [
            BackgroundTaskStatus(number: 1, url: url, state: "running", bytesReceived: running, bytesExpected: 100),
            BackgroundTaskStatus(number: 2, url: url + "?b", state: "suspended", bytesReceived: 10, bytesExpected: 100),
            BackgroundTaskStatus(number: 3, url: url + "?c", state: "completed", statusCode: 200, path: "/tmp/x", bytesReceived: 100, bytesExpected: 100),
            BackgroundTaskStatus(number: 4, url: url + "?d", state: "completed", error: "cancelled (-999): cancelled", bytesReceived: 5),
            BackgroundTaskStatus(number: 5, url: url + "?e", state: "queued", bytesReceived: 0),
            BackgroundTaskStatus(number: 6, url: url + "?f", state: "completed", statusCode: 404, bytesReceived: 9),
        ])]
    }

    /// The golden local sessions and the daemon's, two pictures one second apart (speeds).
    static func model(width: Int = 200, height: Int = 40) -> (MonitorModel, DaemonSnapshots) {
        var converter = DaemonSnapshots()
        var m = MonitorModel()
        (m.width, m.height, m.now) = (width, height, Fixtures.at(350))
        m.apply(Fixtures.sessions() + converter.sessions(statuses(running: 40), now: m.now), at: 0)
        m.apply(Fixtures.sessions() + converter.sessions(statuses(running: 90), now: m.now), at: 1)
        return (m, converter)
    }

    static func select(_ m: inout MonitorModel, _ task: Int) {
        m.selectedTask = TaskID(session: DaemonRows.firstSessionID, task: task)
    }

    @Test func backgroundRowsAreDrawnBesideLocalOnes() {
        var (m, _) = Self.model()
        Self.select(&m, 1)
        let screen = ScreenRenderer.render(m).render()
        let lines = screen.split(separator: "\n").map(String.init)
        // The session row: "bg", its name, kind background, beside the local "1 downloads".
        #expect(lines.contains { $0.contains("1 downloads") }, "\(screen)")
        #expect(lines.contains { $0.contains("bg nightly") && $0.contains("background") && $0.contains("active") }, "\(screen)")
        func row(_ id: String) -> String { lines.first { $0.dropFirst().hasPrefix(id + " ") } ?? "" }
        #expect(row("nightly:1").contains("running") && row("nightly:1").contains("90%"), "\(screen)")
        // Speed from the byte deltas: 50 bytes in one second.
        #expect(row("nightly:1").contains("50 B/s"), "\(row("nightly:1"))")
        #expect(row("nightly:2").contains("suspended"))
        #expect(row("nightly:3").contains("completed") && row("nightly:3").contains("ok"))
        #expect(row("nightly:4").contains("cancelled"), "\(row("nightly:4"))")
        #expect(row("nightly:5").contains("queued"))
        #expect(row("nightly:6").contains("completed") && row("nightly:6").contains("404"), "\(row("nightly:6"))")
        // The local rows are unchanged.
        #expect(row("1.1").contains("running"))

        // The detail pane names the task as the daemon does and says what it does not send.
        Self.select(&m, 3)
        m.detailShown = true
        let detail = ScreenRenderer.render(m).render()
        #expect(detail.contains("Task nightly:3") && detail.contains("run by the daemon") && detail.contains("file /tmp/x"), "\(detail)")

        m.goneDaemonSessions = Set(m.sessions.map(\.id))
        let gone = ScreenRenderer.render(m).render()
        #expect(gone.split(separator: "\n").contains { $0.contains("bg nightly") && $0.contains("daemon gone") }, "\(gone)")
    }

    @Test func keysOnBackgroundRowsBecomeDaemonEffectsOrSayWhyNot() {
        var (m, converter) = Self.model()
        let bg = DaemonRows.firstSessionID
        m.confirmDestructive = true
        Self.select(&m, 1)
        var (after, effect) = Reducer.handleKey(m, .char("s"))
        #expect(effect == .suspend(TaskID(session: bg, task: 1)))
        (after, effect) = Reducer.handleKey(m, .char("d"))
        #expect(effect == .cancelWithResumeData(TaskID(session: bg, task: 1)))
        #expect(after.awaitingResumeData.isEmpty)  // the daemon's reply says how it ended
        (after, effect) = Reducer.handleKey(m, .char("c"))
        #expect(effect == nil && after.confirmation?.question.hasPrefix("cancel task nightly:1?") == true, "\(after.confirmation?.question ?? "")")
        (after, effect) = Reducer.handleKey(after, .char("y"))
        #expect(effect == .cancel(TaskID(session: bg, task: 1)))
        (after, effect) = Reducer.handleKey(m, .char("n"))
        #expect(effect == nil && after.prompt == nil)
        #expect(after.statusMessage == "background session nightly takes new tasks from the command line: transfertop --background nightly URL")
        (after, effect) = Reducer.handleKey(m, .char("f"))
        #expect(effect == nil && after.statusMessage?.hasPrefix("the daemon cannot let background session nightly finish first") == true)
        (after, effect) = Reducer.handleKey(m, .char("X"))
        #expect(after.confirmation?.question.hasPrefix("cancel 3 tasks of background session nightly and invalidate it?") == true,
                "\(after.confirmation?.question ?? "")")
        (after, effect) = Reducer.handleKey(after, .char("y"))
        #expect(effect == .invalidateAndCancel(sessionID: bg))
        Self.select(&m, 4)
        (after, effect) = Reducer.handleKey(m, .char("R"))
        #expect(effect == nil && after.statusMessage?.contains("nightly:4 belongs to the daemon") == true, "\(after.statusMessage ?? "")")
        (after, effect) = Reducer.handleKey(m, .char("r"))
        #expect(effect == nil && after.statusMessage?.hasPrefix("task nightly:4 has been cancelled") == true, "\(after.statusMessage ?? "")")

        // The feed turns the effects into control requests by the session's name.
        let feed = DaemonFeed(paths: DaemonPaths(runtimeDirectory: "/nonexistent", stateDirectory: "/nonexistent"), session: nil)
        _ = feed.snapshots(now: m.now)  // no picture yet: no names
        #expect(converter.name(of: bg) == "nightly")
        #expect(feed.route(.exportCSV) == nil)
        #expect(feed.route(.suspend(TaskID(session: 1, task: 1))) == nil)  // a local task: the runner's
    }

    /// Two daemons in one monitor: each numbers its sessions in its own range and names them
    /// host/NAME; a key's effect names the selected row's session id, which only its own
    /// daemon's feed claims; "daemon gone" marks that host's rows only.
    @Test func twoDaemonsNumberTheirSessionsApartAndOnlyTheOwnerTakesAKey() {
        func feed(_ index: Int, _ label: String) -> DaemonFeed {
            DaemonFeed(endpoint: .local(DaemonPaths(runtimeDirectory: "/nonexistent", stateDirectory: "/nonexistent")), session: nil,
                       environment: [:], host: (index, label))
        }
        let (a, b) = (feed(0, "hosta"), feed(1, "hostb"))
        var (ca, cb) = (DaemonSnapshots(), DaemonSnapshots())
        (ca.base, ca.label, cb.base, cb.label) = (a.base, "hosta/", b.base, "hostb/")
        var m = MonitorModel()
        (m.width, m.height, m.now) = (160, 30, Fixtures.at(350))
        let picture = Self.statuses(running: 40)
        m.apply(ca.sessions(picture, now: m.now) + cb.sessions(picture, now: m.now), at: 0)
        let sb = b.base
        #expect(m.sessions.map(\.name) == ["hosta/nightly", "hostb/nightly"])
        #expect(m.sessions.map(\.id) == [a.base, sb] && sb == DaemonRows.firstSessionID + DaemonRows.sessionsPerHost)
        m.selectedTask = TaskID(session: sb, task: 1)
        let (_, effect) = Reducer.handleKey(m, .char("s"))
        #expect(effect == .suspend(TaskID(session: sb, task: 1)))
        #expect(b.owns(sb) && !a.owns(sb) && a.owns(a.base) && !b.owns(a.base))
        m.goneDaemonSessions = [a.base]
        let lines = ScreenRenderer.render(m).render().split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("bg hosta/nightly") && $0.contains("daemon gone") })
        #expect(lines.contains { $0.contains("bg hostb/nightly") && !$0.contains("daemon gone") })
        #expect(lines.contains { $0.dropFirst().hasPrefix("hostb/nightly:1 ") && $0.contains("running") })
    }

    @Test func quittingAsksOnlyAboutLocalTasks() {
        var m = MonitorModel()
        var converter = DaemonSnapshots()
        m.apply(converter.sessions(Self.statuses(), now: Date()), at: 0)
        m.confirmDestructive = true
        let (after, effect) = Reducer.handleKey(m, .char("q"))
        #expect(effect == .quit && after.confirmation == nil)  // the daemon's tasks go on
        m.attachedSession = "nightly"
        m.width = 120
        let footer = ScreenRenderer.render(m).rowText(m.height - 1)
        #expect(footer.contains("q detach"), "\(footer)")
    }

    @Test func errorsFromTheJournalKeepTheirCode() {
        #expect(DaemonSnapshots.error("cancelled (-999): cancelled").code == .cancelled)
        #expect(DaemonSnapshots.error("cannotConnectToHost (-1004): refused") == TransferError(.cannotConnectToHost, "refused"))
        #expect(DaemonSnapshots.error("cancelled (session invalidated)").code == .cancelled)
        #expect(DaemonSnapshots.error("cannot place the file (disk full)").code == .unknown)
    }
}

extension BackgroundMonitorModelTests {
    @Test func stateChangesBetweenPicturesGoToTheEventLog() {
        var converter = DaemonSnapshots()
        var statuses = Self.statuses()
        var m = MonitorModel()
        (m.width, m.height, m.now) = (160, 40, Fixtures.at(350))
        m.apply(converter.sessions(statuses, now: m.now), at: 0)
        #expect(converter.takeEvents().isEmpty)  // the first picture is not news
        statuses[0].tasks[1].state = "running"
        statuses[0].invalidated = true
        m.apply(converter.sessions(statuses, now: m.now), at: 1)
        let events = converter.takeEvents()
        let bg = DaemonRows.firstSessionID
        #expect(events.map(\.kind) == [.sessionStateChanged(.invalidated), .taskStateChanged(.running)])
        #expect(events.last?.sessionID == bg && events.last?.taskIdentifier == 2)
        m.append(events)
        let screen = ScreenRenderer.render(m).render()
        #expect(screen.contains("nightly:2 task running") && screen.contains("background session nightly session invalidated"), "\(screen)")
    }
}

extension BackgroundMonitorModelTests {
    /// A local run's monitor looks for a daemon without making its directories.
    @Test func lookingForADaemonCreatesNothing() throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_RUNTIME_DIR": dir + "/run", "XDG_STATE_HOME": dir + "/state"]
        let paths = try #require(DaemonPaths.located(env))
        #expect(paths.runtimeDirectory == dir + "/run/transfertop" && paths.stateDirectory == dir + "/state/transfertop")
        #expect(DaemonFeed.standard(env) != nil)
        #expect(!paths.runtimeDirectoryIsOurs)
        #expect(!FileManager.default.fileExists(atPath: dir + "/run") && !FileManager.default.fileExists(atPath: dir + "/state"))
        // `standard`, which the daemon and the background commands use, makes them.
        #expect(try DaemonPaths.standard(env) == paths)
        #expect(paths.runtimeDirectoryIsOurs)
        #expect(DaemonPaths.located([:]) == nil)
    }
}

extension BackgroundMonitorModelTests {
    /// Byte counts come from a socket and a file: values near Int64.max, negative ones and an
    /// expected size of 0 or less are clamped (0...2^53, unknown) before the speed meter and
    /// the ETA, which must not trap (on the UI thread, with the terminal raw) or go negative.
    @Test func hostileByteCountsAreClampedAndDrawn() {
        func statuses(_ received: Int64, _ expected: Int64?) -> [BackgroundSessionStatus] {
            [BackgroundSessionStatus(name: "evil", invalidated: false, tasks: [
                BackgroundTaskStatus(number: 1, url: Self.url, state: "running", bytesReceived: received, bytesExpected: expected),
                BackgroundTaskStatus(number: 2, url: Self.url, state: "running", bytesReceived: -received, bytesExpected: expected.map { -$0 }),
            ])]
        }
        var converter = DaemonSnapshots()
        var m = MonitorModel()
        (m.width, m.height, m.now) = (160, 40, Fixtures.at(350))
        let pictures: [(Int64, Int64?)] = [(Int64.max, Int64.max), (Int64.max - 1, 0), (0, Int64.min + 1),
                                           (Int64.max, nil), (1 << 62, -1), (Int64.max, Int64.max)]
        for (i, (received, expected)) in pictures.enumerated() {
            let sessions = converter.sessions(statuses(received, expected), now: m.now)
            for t in sessions.flatMap(\.tasks) {
                #expect((0...DaemonSnapshots.maxBytes).contains(t.countOfBytesReceived))
                #expect(t.countOfBytesExpectedToReceive == -1 || (1...DaemonSnapshots.maxBytes).contains(t.countOfBytesExpectedToReceive))
            }
            m.apply(sessions, at: Double(i))
            _ = ScreenRenderer.render(m).render()
        }
        let first = converter.sessions(statuses(Int64.max, 0), now: m.now)[0].tasks
        #expect(first[0].countOfBytesReceived == DaemonSnapshots.maxBytes && first[0].countOfBytesExpectedToReceive == -1)
        #expect(first[1].countOfBytesReceived == 0)
        let screen = ScreenRenderer.render(m).render()
        #expect(screen.contains("bg evil"), "\(screen)")
    }
}

extension BackgroundMonitorModelTests {
    /// A key on a background row becomes a control request by the session's name; one sent
    /// just before quitting is still tried at `stop()` and its failure kept (no daemon here).
    @Test func aKeyOnABackgroundRowIsSentEvenAtQuit() {
        let feed = DaemonFeed(paths: DaemonPaths(runtimeDirectory: "/nonexistent", stateDirectory: "/nonexistent"), session: nil)
        let bg = DaemonRows.firstSessionID
        #expect(feed.route(.suspend(TaskID(session: bg, task: 1))) == "no background session for \(TaskID(session: bg, task: 1))")
        feed.received(Self.statuses())
        #expect(feed.snapshots(now: Date()).first?.name == "nightly")
        #expect(feed.route(.suspend(TaskID(session: bg, task: 1))) == "asking the daemon: suspend nightly:1…")
        #expect(feed.route(.cancelWithResumeData(TaskID(session: bg, task: 2))) == "asking the daemon: cancelWithResumeData nightly:2…")
        #expect(feed.route(.invalidateAndCancel(sessionID: bg)) == "asking the daemon: invalidate nightly…")
        feed.stop()
        let notices = feed.takeNotices()
        #expect(notices.count == 3 && notices.allSatisfy { $0.hasPrefix("daemon, nightly") }, "\(notices)")
        #expect(notices.first == "daemon, nightly:1: no transfertop daemon is running", "\(notices)")
    }
}

extension BackgroundMonitorModelTests {
    /// `.progress` between two pictures moves the byte counts of the tasks it names, found by
    /// number, and nothing else; an unknown session or task is ignored.
    @Test func progressBetweenPicturesMovesOnlyItsTasks() {
        var statuses = Self.statuses()
        let before = statuses
        DaemonFeed.apply([BackgroundTaskProgress(session: "nightly", number: 1, bytesReceived: 77, bytesExpected: 100),
                          BackgroundTaskProgress(session: "nightly", number: 99, bytesReceived: 5, bytesExpected: nil),
                          BackgroundTaskProgress(session: "other", number: 1, bytesReceived: 5, bytesExpected: nil)], to: &statuses)
        #expect(statuses[0].tasks[0].bytesReceived == 77)
        statuses[0].tasks[0].bytesReceived = before[0].tasks[0].bytesReceived
        #expect(statuses == before)
        #expect(DaemonFeed.place(of: 6, in: before[0].tasks) == 5 && DaemonFeed.place(of: 0, in: before[0].tasks) == nil)
    }
}
