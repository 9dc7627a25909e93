import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// The detail pane's peak speed is never below what the task is known to have moved: 64 KiB
/// that arrived before the monitor's first sample, then a stall, read `peak 0 B/s`.
@Suite struct PeakSpeedTests {
    @Test func aBurstBeforeTheFirstSampleIsNotAPeakOfZero() throws {
        var t = TransactionMetrics(method: "GET", url: "http://h/stall", fetchStartDate: Fixtures.at(0),
                                   requestStartDate: Fixtures.at(0), responseStartDate: Fixtures.at(0), currentPhase: .receive)
        t.statusCode = 200
        let metrics = TaskMetrics(taskIntervalStart: Fixtures.at(0), taskIntervalEnd: nil, redirectCount: 0, transactionMetrics: [t])
        let task = Fixtures.task(1, 1, .running, url: "http://h/stall", received: 65_536, expected: Fixtures.mib, status: 200,
                                 metrics: metrics)
        let session = SessionSnapshot(id: 1, name: "s", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: [task])
        var m = MonitorModel()
        m.width = 120
        m.height = 40
        m.now = Fixtures.at(2000)
        m.apply([session], at: 0)  // the 64 KiB are already there at the first sample
        m.apply([session], at: 1)  // and nothing more comes
        #expect(m.rates.taskHistory[task.id] == [0, 0])
        let text = ScreenRenderer.detailLines(task, model: m, width: 120).map { $0.map(\.text).joined() }
        let line = try #require(text.first { $0.hasPrefix("speed ") })
        #expect(line.contains("peak \(Units.speed(32_768)),"), "\(line)")
    }
}
