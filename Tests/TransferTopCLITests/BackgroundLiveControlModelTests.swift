import BackgroundWire
import Foundation
import Testing
import TransferModel
@testable import TransferTopCLI
@testable import TransferTopDaemon
@testable import TransferTopUI

/// The live-control keys on the daemon's rows (DECISIONS 178): the same effects as on local
/// rows, which the feed sends as `control … retry|limit|connections`.
@Suite struct BackgroundLiveControlModelTests {
    @Test func liveKeysOnBackgroundRowsBecomeDaemonEffects() throws {
        var (m, _) = BackgroundMonitorModelTests.model()
        let bg = DaemonRows.firstSessionID
        BackgroundMonitorModelTests.select(&m, 6)  // completed with HTTP 404
        #expect(Reducer.handleKey(m, .char("a")).1 == .retry(TaskID(session: bg, task: 6)))
        BackgroundMonitorModelTests.select(&m, 1)  // running
        let (asking, _) = Reducer.handleKey(m, .char("l"))
        #expect(asking.prompt?.purpose == .taskRateLimit(TaskID(session: bg, task: 1)))
        // The prompt names the task as the user does (NAME:N), not by its row id.
        let name = try #require(m.session(bg)?.name)
        #expect(ScreenRenderer.render(asking).render().contains("limit task \(name):1 to"))
        var after = asking
        var effect: Effect?
        for k in ["2", "M"].map({ Key.char(Character($0)) }) + [.enter] { (after, effect) = Reducer.handleKey(after, k) }
        #expect(effect == .limitTask(TaskID(session: bg, task: 1), 2 << 20))
        // The daemon's pictures do not say its connections per host: + and - say how to set
        // them rather than step from a guess (which could lower a limit meant to be raised).
        let (refused, none) = Reducer.handleKey(m, .char("+"))
        #expect(none == nil && refused.statusMessage?.contains("control NAME connections N") == true, "\(refused.statusMessage ?? "")")
        #expect(Reducer.handleKey(m, .char("-")).1 == nil)
        // Once the daemon took a value (the feed shows it), they step from it.
        var known = m
        if let i = known.sessions.firstIndex(where: { $0.id == bg }) { known.sessions[i].maxConnectionsPerHost = 3 }
        #expect(Reducer.handleKey(known, .char("+")).1 == .connectionsPerHost(sessionID: bg, 4))
        #expect(Reducer.handleKey(known, .char("-")).1 == .connectionsPerHost(sessionID: bg, 2))

        // Without a picture the feed knows no session names: it says so instead of sending.
        let feed = DaemonFeed(paths: DaemonPaths(runtimeDirectory: "/nonexistent", stateDirectory: "/nonexistent"), session: nil)
        #expect(feed.route(.retry(TaskID(session: bg, task: 6))) == "no background session \(bg)")
        #expect(feed.route(.connectionsPerHost(sessionID: bg, 7)) == "no background session \(bg)")
        // A local session's limits are the runner's.
        #expect(feed.route(.limitSession(sessionID: 1, 1000)) == nil)
    }
}
