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

    @Test func aTaskContinuedWithRIsCountedOnce() {
        // 1.1 was cancelled with resume data at 6 MiB of 10; 1.2 continues it from 6 MiB.
        let tasks = [
            Fixtures.task(1, 1, .completed, url: "http://h/a", received: 6 * mib, expected: 10 * mib, status: 200,
                          error: TransferError(.cancelled, "cancelled"), resumable: true),
            Fixtures.task(1, 2, .running, url: "http://h/a", received: 8 * mib, expected: 10 * mib, status: 206),
        ]
        var m = MonitorModel()
        m.superseded = [TaskID(session: 1, task: 1)]
        m.apply([Self.session(tasks)], at: 0)
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
}
