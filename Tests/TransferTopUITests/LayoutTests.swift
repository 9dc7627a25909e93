import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

@Suite struct LayoutTests {
    @Test(arguments: [(80, 24), (120, 40), (40, 10)])
    func goldenScreens(size: (Int, Int)) {
        let grid = ScreenRenderer.render(Fixtures.model(width: size.0, height: size.1))
        Golden.check(grid.render(), "screen-\(size.0)x\(size.1)")
    }

    @Test func goldenScreenWithoutDetailInAscii() {
        var m = Fixtures.model(width: 80, height: 24, detail: false)
        m.utf8 = false
        Golden.check(ScreenRenderer.render(m).render(), "screen-80x24-ascii")
    }

    @Test(arguments: [(0, 0), (1, 1), (39, 9), (39, 24), (80, 9)])
    func tooSmallShowsAMessage(size: (Int, Int)) {
        let grid = ScreenRenderer.render(Fixtures.model(width: size.0, height: size.1))
        #expect(grid.width == size.0 && grid.height == size.1)
        if size.0 >= ScreenRenderer.tooSmallMessage.count {
            #expect(grid.render().contains(ScreenRenderer.tooSmallMessage))
        }
        if size == (1, 1) { #expect(grid.render() == "…") }
    }

    @Test func everySizeFromTinyToLargeRendersWithoutCrashing() {
        for w in stride(from: 0, through: 130, by: 7) {
            for h in stride(from: 0, through: 45, by: 5) {
                let grid = ScreenRenderer.render(Fixtures.model(width: w, height: h))
                #expect(grid.cells.count == w * h)
            }
        }
    }

    @Test func secretsNeverReachTheScreen() {
        let text = ScreenRenderer.render(Fixtures.model(width: 120, height: 40)).render()
        #expect(!text.contains("s3cr3t"))
        #expect(!text.contains("id=abc"))
        #expect(!text.contains("pw@"))
        #expect(text.contains("Authorization: ••••"))
    }

    @Test func selectionScrollsTheTable() {
        var m = MonitorModel()
        m.apply([Fixtures10k.session(count: 200)], at: 0)
        for _ in 0..<50 { (m, _) = Reducer.reduce(m, .selectDown) }
        #expect(m.selectedTask == TaskID(session: 1, task: 51))
        let grid = ScreenRenderer.render(m)
        let selectedRow = (0..<grid.height).first { grid[0, $0].grapheme == "›" && grid[1, $0].role == .selection }
        #expect(selectedRow != nil)
        #expect(grid.rowText(selectedRow!).contains("1.51 "))
    }
}

/// Large models for the 10,000-task checks and the benchmark.
enum Fixtures10k {
    static func session(count: Int) -> SessionSnapshot {
        let tasks = (1...count).map { i in
            Fixtures.task(1, i, i % 3 == 0 ? .completed : .running, url: "https://example.test/file\(i).bin",
                          received: Int64(i) * 1000, expected: Int64(count) * 1000, status: 200, proto: "h2")
        }
        return SessionSnapshot(id: 1, name: "bulk", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: tasks)
    }
}
