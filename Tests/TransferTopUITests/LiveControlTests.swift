import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// The keys for control while tasks run (DECISIONS 176-178): `a` retries an ended task, `l`
/// and `L` ask for a bandwidth limit, `+` and `-` change connections per host; the header and
/// the detail pane show what is in force, on an 80-column screen.
@Suite struct LiveControlTests {
    static func model(_ tasks: [TaskSnapshot], rate: Int64 = 0, perHost: Int = 6, changed: Bool = false) -> MonitorModel {
        var m = MonitorModel()
        m.width = 80
        m.height = 24
        m.now = Fixtures.t0
        m.apply([SessionSnapshot(id: 1, name: "s", kind: .default, state: .active, maxConnectionsPerHost: perHost,
                                 rateLimit: rate, limitsChanged: changed, tasks: tasks)], at: 0)
        m.selectedTask = tasks.first?.id
        return m
    }

    static func keys(_ m: MonitorModel, _ keys: [Key]) -> (MonitorModel, Effect?) {
        var m = m
        var effect: Effect?
        for k in keys { (m, effect) = Reducer.handleKey(m, k) }
        return (m, effect)
    }

    static func typed(_ text: String) -> [Key] { text.map { Key.char($0) } + [.enter] }

    static let running = Fixtures.task(1, 1, .running, url: "http://h/big", received: Fixtures.mib, expected: 8 * Fixtures.mib, status: 200)
    static let failed = Fixtures.task(1, 1, .completed, url: "http://h/gone", error: TransferError(.cannotConnectToHost, "refused"))

    @Test func aRetriesAFailedTaskAndRefusesARunningOne() {
        let (_, effect) = Self.keys(Self.model([Self.failed]), [.char("a")])
        #expect(effect == .retry(TaskID(session: 1, task: 1)))
        let (m, none) = Self.keys(Self.model([Self.running]), [.char("a")])
        #expect(none == nil)
        #expect(m.statusMessage?.contains("has not ended") == true)
        let ok = Fixtures.task(1, 1, .completed, url: "http://h/ok", received: 10, expected: 10, status: 200)
        let (m2, _) = Self.keys(Self.model([ok]), [.char("a")])
        #expect(m2.statusMessage?.contains("nothing to retry") == true)
    }

    @Test func lAsksForTheTasksLimitAndReadsRates() {
        let (asking, none) = Self.keys(Self.model([Self.running]), [.char("l")])
        #expect(none == nil)
        #expect(asking.prompt?.purpose == .taskRateLimit(TaskID(session: 1, task: 1)))
        #expect(ScreenRenderer.render(asking).render().contains("limit task 1.1 to"))
        let (_, effect) = Self.keys(asking, Self.typed("500K"))
        #expect(effect == .limitTask(TaskID(session: 1, task: 1), 500 * 1024))
        let (refused, nothing) = Self.keys(asking, Self.typed("fast"))
        #expect(nothing == nil)
        #expect(refused.statusMessage?.contains("not 'fast'") == true)
        let (_, lifted) = Self.keys(asking, Self.typed("0"))
        #expect(lifted == .limitTask(TaskID(session: 1, task: 1), 0))
    }

    @Test func sessionKeysLimitAndChangeConnectionsPerHost() {
        let m = Self.model([Self.running], perHost: 2)
        let (_, limit) = Self.keys(m, [.char("L")] + Self.typed("2M"))
        #expect(limit == .limitSession(sessionID: 1, 2 << 20))
        #expect(Self.keys(m, [.char("+")]).1 == .connectionsPerHost(sessionID: 1, 3))
        #expect(Self.keys(m, [.char("-")]).1 == .connectionsPerHost(sessionID: 1, 1))
        let one = Self.model([Self.running], perHost: 1)
        let (refused, none) = Self.keys(one, [.char("-")])
        #expect(none == nil)
        #expect(refused.statusMessage?.contains("the least") == true)
    }

    @Test func theHeaderShowsLimitsOnceChangedWithin80Columns() {
        let plain = ScreenRenderer.render(Self.model([Self.running])).render().split(separator: "\n")[0]
        #expect(!plain.contains("/host"))
        var limited = Self.running
        limited.rateLimit = 100 * 1024
        let m = Self.model([limited], rate: 2 << 20, perHost: 3, changed: true)
        let header = String(ScreenRenderer.render(m).render().split(separator: "\n")[0])
        #expect(header.contains("max 2.0 MiB/s 3/host 1 limited"), "\(header)")
        #expect(DisplayWidth.of(header.trimmingCharacters(in: .whitespaces)) <= 80)
        let summary = ScreenRenderer.summary(limited, utf8: true).map(\.text).joined()
        #expect(summary.contains("limit 100 KiB/s"), "\(summary)")
    }

    @Test func ratesAreReadAsCurlsLimitRate() {
        #expect(RateText.parse("500K") == 512_000)
        #expect(RateText.parse("2M") == 2 << 20)
        #expect(RateText.parse("1.5m") == 1_572_864)
        #expect(RateText.parse("750") == 750)
        #expect(RateText.parse("0") == 0)
        #expect(RateText.parse("2MiB/s") == 2 << 20)
        for bad in ["", "-1", "fast", "1.2.3", "0.0001", "2T", "99999999999999G"] { #expect(RateText.parse(bad) == nil, "\(bad)") }
        #expect(RateText.typed(512_000) == "500K")
        #expect(RateText.typed(0) == "")
    }

    @Test func keysFileBindsTheNewActions() throws {
        let bindings = try KeyBindingParser.parse("\"+\" = \"none\"\nx = \"retry\"\n\"=\" = \"more-connections\"", file: "keys.toml")
        #expect(bindings.action(for: .char("x")) == .retry)
        #expect(bindings.action(for: .char("+")) == nil)
        #expect(bindings.action(for: .char("=")) == .moreConnections)
    }
}
