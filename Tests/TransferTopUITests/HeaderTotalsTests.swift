import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// The header's bytes and ETA add up: what a cancelled or failed task never moved leaves the
/// total, a task continued with R is counted once (by its continuation), and the ETA is when
/// the slowest running task should end, not the aggregate.
private let mib = Fixtures.mib

@Suite struct HeaderTotalsTests {
    static func session(_ tasks: [TaskSnapshot]) -> SessionSnapshot {
        SessionSnapshot(id: 1, name: "s", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: tasks)
    }

    @Test func everyTaskEndedMeansOneHundredPercent() {
        let tasks = [
            Fixtures.task(1, 1, .completed, url: "http://h/a", received: 10 * mib, expected: 10 * mib, status: 200),
            Fixtures.task(1, 2, .completed, url: "http://h/b", received: 3 * mib, expected: 12 * mib, status: 200,
                          error: TransferError(.cancelled, "cancelled")),
            Fixtures.task(1, 3, .completed, url: "http://h/c", received: 1 * mib, expected: 8 * mib, status: 200,
                          error: TransferError(.networkConnectionLost, "lost")),
        ]
        let t = SessionTotals(tasks)
        #expect(t.done == 14 * mib && t.total == 14 * mib && t.remaining == 0)
        var m = MonitorModel()
        m.apply([Self.session(tasks)], at: 0)
        #expect(ScreenRenderer.overall(m) == "14.0 MiB/14.0 MiB 100%")
    }

    /// 1.1 was cancelled with resume data at 6 MiB of 10; 1.2 continues it (R) from 6 MiB.
    static func continuedWithR() -> MonitorModel {
        let tasks = [
            Fixtures.task(1, 1, .completed, url: "http://h/a", received: 6 * mib, expected: 10 * mib, status: 200,
                          error: TransferError(.cancelled, "cancelled"), resumable: true),
            Fixtures.task(1, 2, .running, url: "http://h/a", received: 8 * mib, expected: 10 * mib, status: 206),
        ]
        var m = MonitorModel()
        m.superseded = [TaskID(session: 1, task: 1)]
        m.apply([Self.session(tasks)], at: 0)
        return m
    }

    @Test func aTaskContinuedWithRIsCountedOnce() {
        let m = Self.continuedWithR()
        let t = m.totals[1]!
        #expect(t.done == 8 * mib && t.total == 10 * mib && t.remaining == 2 * mib)
        #expect(t.counts.total == 2, "the row is still a task of the table")
    }

    @Test func theETAIsTheSlowestRunningTasks() {
        // 1.1: 90 MiB left at 9 MiB/s (10 s); 1.2: 6 MiB left at 0.1 MiB/s (60 s). The aggregate
        // (96 MiB at 9.1 MiB/s) would say 11 s.
        var m = MonitorModel()
        for second in 0...5 {
            let s = Int64(second)
            m.apply([Self.session([
                Fixtures.task(1, 1, .running, url: "http://h/fast", received: 10 * mib + s * 9 * mib - 45 * mib, expected: 100 * mib),
                Fixtures.task(1, 2, .running, url: "http://h/slow", received: 4 * mib + s * mib / 10 - mib / 2, expected: 10 * mib),
            ])], at: Double(second))
        }
        let slowest = ScreenRenderer.slowestTaskETA(m)
        #expect(slowest.map { abs($0 - 60) < 1 } == true, "\(String(describing: slowest))")
        #expect(ScreenRenderer.overall(m).hasSuffix("ETA \(Units.eta(slowest))"), "\(ScreenRenderer.overall(m))")
    }

    @Test func aListCountsEndedStartedAndNotYetStartedURLs() {
        // 1.1 ended, 1.2 runs (4 of 10 MiB), 1.3 is queued without a size; 7 lines not started.
        let tasks = [
            Fixtures.task(1, 1, .completed, url: "http://h/a", received: 10 * mib, expected: 10 * mib, status: 200),
            Fixtures.task(1, 2, .running, url: "http://h/b", received: 4 * mib, expected: 10 * mib, status: 200),
            Fixtures.task(1, 3, .running, url: "http://h/c", metrics: Fixtures.queuedMetrics()),
        ]
        var m = MonitorModel()
        m.notStarted = 7
        m.apply([Self.session(tasks)], at: 0)
        #expect(ScreenRenderer.taskCount(m) == "1/3/10 tasks")
        // 14 of 20 MiB known, and 8 more tasks of about 10 MiB each: 14 of 100 MiB, not 70 %.
        #expect(ScreenRenderer.overall(m).hasPrefix("14.0 MiB/20.0 MiB+ 14%"), "\(ScreenRenderer.overall(m))")
        m.notStarted = 0
        m.apply([Self.session(tasks)], at: 1)
        #expect(ScreenRenderer.taskCount(m) == "3 tasks")
    }

    @Test func theETAWaitsForTheQueuedTasks() {
        // 1.1 runs at 1 MiB/s with 5 MiB left (5 s); 1.2 and 1.3 are queued, about 10 MiB each:
        // 25 MiB at 1 MiB/s is 25 s, not 5.
        var m = MonitorModel()
        for second in 0...5 {
            m.apply([Self.session([
                Fixtures.task(1, 1, .running, url: "http://h/a", received: Int64(second) * mib, expected: 10 * mib),
                Fixtures.task(1, 2, .running, url: "http://h/b", metrics: Fixtures.queuedMetrics()),
                Fixtures.task(1, 3, .running, url: "http://h/c", metrics: Fixtures.queuedMetrics()),
            ])], at: Double(second))
        }
        let speed = m.rates.down.bytesPerSecond
        #expect(abs(speed - Double(mib)) < 1)
        #expect(ScreenRenderer.overall(m).hasSuffix("ETA \(Units.eta(Double(25 * mib) / speed))"), "\(ScreenRenderer.overall(m))")
    }

    @Test func aDownloadContinuedWithRIsOneTaskInTheHeader() {
        let m = Self.continuedWithR()
        #expect(ScreenRenderer.taskCount(m) == "1 task")
    }

    @Test func aLocalMonitorLeavesTheDaemonsFinishedHistoryOutOfItsHeader() {
        let own = Self.session([Fixtures.task(1, 1, .running, url: "http://h/a", received: 1 * mib, expected: 4 * mib)])
        let id = DaemonRows.firstSessionID
        let history = SessionSnapshot(id: id, name: "bg", kind: .background(identifier: "bg"), state: .active, maxConnectionsPerHost: 6, tasks: [
            Fixtures.task(id, 1, .completed, url: "http://h/old", received: 50 * mib, expected: 50 * mib, status: 200),
            Fixtures.task(id, 2, .running, url: "http://h/live", received: 1 * mib, expected: 2 * mib),
        ])
        var m = MonitorModel()
        m.apply([own, history], at: 0)
        #expect(ScreenRenderer.taskCount(m) == "2 tasks")
        #expect(ScreenRenderer.overall(m).hasPrefix("2.0 MiB/6.0 MiB 33%"), "\(ScreenRenderer.overall(m))")
        #expect(m.totals[id]?.counts.total == 2, "the sessions pane still shows the history")
        m.attachedSession = "bg"
        m.apply([history], at: 1)
        #expect(ScreenRenderer.taskCount(m) == "2 tasks", "attached, the session's history is the subject")
    }
}
