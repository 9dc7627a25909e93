import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// A task suspended for longer than a minute says so in RESULT and in the detail pane: its
/// server may have closed the connection meanwhile.
@Suite struct LongSuspensionTests {
    static func model(suspendedAt: Double, now: Double, state: TaskState = .suspended) -> (MonitorModel, TaskSnapshot) {
        let task = Fixtures.task(1, 1, .suspended, url: "http://h/big", received: Fixtures.mib, expected: 8 * Fixtures.mib, status: 200)
        let session = SessionSnapshot(id: 1, name: "s", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: [task])
        var m = MonitorModel()
        m.width = 120
        m.height = 40
        m.now = Fixtures.t0.addingTimeInterval(suspendedAt)
        m.apply([session], at: suspendedAt)
        m.now = Fixtures.t0.addingTimeInterval(now)
        var later = task
        later.state = state
        m.apply([SessionSnapshot(id: 1, name: "s", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: [later])], at: now)
        return (m, later)
    }

    static func result(_ m: MonitorModel, _ t: TaskSnapshot) -> String {
        ScreenRenderer.resultCell(t, hops: [], suspendedFor: m.suspendedFor(t.id)).map(\.text).joined()
    }

    @Test func aSuspensionPastAMinuteIsMarked() {
        let (m, t) = Self.model(suspendedAt: 0, now: 65)
        #expect(Self.result(m, t) == "idle >1m")
        let state = ScreenRenderer.stateLine(t, model: m).map(\.text).joined()
        #expect(state.contains("for 1m05s: the server may have closed the connection"), "\(state)")
        let row = ScreenRenderer.render(m).render()
        #expect(row.contains("idle >1m"))
    }

    @Test func aShortSuspensionIsNotMarked() {
        let (m, t) = Self.model(suspendedAt: 0, now: 30)
        #expect(Self.result(m, t) == "")
    }

    @Test func aResumedTaskForgetsItsSuspension() {
        let (m, t) = Self.model(suspendedAt: 0, now: 65, state: .running)
        #expect(m.suspendedFor(t.id) == nil)
    }
}
