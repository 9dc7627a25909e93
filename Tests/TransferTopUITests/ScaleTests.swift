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
        // UI_BENCH_TASKS=10000 swift test -c release -Xswiftc -enable-testing --filter benchmark
        let tasks = Int(ProcessInfo.processInfo.environment["UI_BENCH_TASKS"] ?? "") ?? 2_000
        let ms = LayoutBenchmark.run(tasks: tasks, frames: tasks > 2_000 ? 50 : 3)
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
        print("layout benchmark: \(tasks) tasks, \(ms) ms/frame (key + render)")
        m.filter = "file1"
        let filterStart = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<frames { _ = ScreenRenderer.render(m) }
        print("layout benchmark: \(tasks) tasks, \(Double(DispatchTime.now().uptimeNanoseconds - filterStart) / 1e6 / Double(frames)) ms/frame with a filter")
        let sessions = m.sessions
        let applyStart = DispatchTime.now().uptimeNanoseconds
        for i in 0..<frames { m.apply(sessions, at: Double(i + 1) / 10) }
        print("layout benchmark: \(tasks) tasks, \(Double(DispatchTime.now().uptimeNanoseconds - applyStart) / 1e6 / Double(frames)) ms per snapshot applied (speeds)")
        return ms
    }
}
