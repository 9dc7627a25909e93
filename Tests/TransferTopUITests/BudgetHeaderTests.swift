import Foundation
import MonitorFixtures
import Testing
@testable import TransferTopUI

/// `--slo` in the monitor (DECISIONS 191): a breached budget turns the header to the error
/// colour and names the breach, at any width; without one the header is as before.
@Suite struct BudgetHeaderTests {
    @Test func aBreachTurnsTheHeaderRedAndNamesIt() throws {
        var m = Fixtures.model(width: 120, height: 40)
        let before = ScreenRenderer.render(m)
        #expect(before[0, 0].role == .header)
        #expect(!before.rowText(0).contains("OVER BUDGET"))
        m.budgetBreach = "OVER BUDGET ttfb.p95<100ms: 253ms"
        for width in [120, 80, 50] {
            m.width = width
            let grid = ScreenRenderer.render(m)
            let header = grid.rowText(0)
            #expect(header.hasPrefix("transfertop  OVER BUDGET ttfb.p95<100ms: 253ms"), "\(width): \(header)")
            #expect((0..<width).allSatisfy { grid[$0, 0].role == .error }, "\(width)")
        }
    }
}
