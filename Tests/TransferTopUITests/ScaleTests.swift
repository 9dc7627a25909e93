import Foundation
import Testing
import TransferModel
@testable import TransferTopUI

@Suite struct ScaleTests {
    /// Correctness only: which rows are drawn with 10,000 tasks. Timing is in `LayoutBenchmark`.
    @Test func tenThousandTasksLayOutOnlyVisibleRows() {
        var m = MonitorModel()
        m.width = 100
        m.height = 30
        m.apply([Fixtures10k.session(count: 10_000)], at: 0)
        for _ in 0..<3 { (m, _) = Reducer.reduce(m, .pageDown) }
        (m, _) = Reducer.reduce(m, .selectLast)
        #expect(m.selectedTask == TaskID(session: 1, task: 10_000))
        let text = ScreenRenderer.render(m).render()
        #expect(text.contains("1.10000 "))
        #expect(text.contains("of 10000"))
        #expect(!text.contains("1.1 "))
        (m, _) = Reducer.reduce(m, .selectFirst)
        let top = ScreenRenderer.render(m).render()
        #expect(top.contains("1.1 "))
        #expect(!top.contains("1.10000"))
    }

    @Test func benchmarkRunsAndReports() {
        let ms = LayoutBenchmark.run(tasks: 2_000, frames: 3)
        #expect(ms >= 0)
    }
}

/// A small benchmark (not a timed test): average ms per frame to lay out a 10,000-task model.
/// Call `LayoutBenchmark.run()` from a release build to check the 16 ms frame budget.
enum LayoutBenchmark {
    static func run(tasks: Int = 10_000, frames: Int = 50) -> Double {
        var m = MonitorModel()
        m.width = 200
        m.height = 60
        m.detailShown = true
        m.apply([Fixtures10k.session(count: tasks)], at: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<frames {
            m.frame = i
            (m, _) = Reducer.reduce(m, .selectDown)
            _ = ScreenRenderer.render(m)
        }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(frames)
        print("layout benchmark: \(tasks) tasks, \(ms) ms/frame")
        return ms
    }
}
