import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// SPEC S12: with `-k` the monitor's header says INSECURE in the error colour, and every
/// https task's URL is drawn in it; without `-k` neither appears.
@Suite struct InsecureMonitorTests {
    static func urlRoles(_ grid: CellGrid, _ m: MonitorModel, scheme: String) -> [StyleRole] {
        var roles: [StyleRole] = []
        for task in m.sessions.flatMap(\.tasks) where task.currentURL.hasPrefix(scheme + "://") {
            let host = URL(string: task.currentURL)?.host ?? ""
            for y in 0..<grid.height {
                let text = grid.rowText(y)
                guard let r = text.range(of: host), text.contains(task.id.description) else { continue }
                roles.append(grid[text.distance(from: text.startIndex, to: r.lowerBound), y].role)
                break
            }
        }
        return roles
    }

    @Test func headerAndHTTPSTasksAreRedOnlyWithInsecure() {
        var m = Fixtures.model(width: 120, height: 40, detail: false)
        let plain = ScreenRenderer.render(m)
        #expect(!plain.rowText(0).contains("INSECURE"))
        #expect(!Self.urlRoles(plain, m, scheme: "https").contains(.error))

        m.insecure = true
        let grid = ScreenRenderer.render(m)
        let header = grid.rowText(0)
        let at = header.distance(from: header.startIndex, to: header.range(of: "INSECURE (-k)")!.lowerBound)
        #expect(grid[at, 0].role == .error)
        let https = Self.urlRoles(grid, m, scheme: "https")
        #expect(!https.isEmpty && https.allSatisfy { $0 == .error })
        #expect(!Self.urlRoles(grid, m, scheme: "http").contains(.error))
    }
}
