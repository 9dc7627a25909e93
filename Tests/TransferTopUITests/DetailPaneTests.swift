import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// The detail pane and event log sized to content, focus with Tab, scrolling,
/// redacted headers, the task's sparkline, one ETA format.
@Suite struct DetailPaneTests {
    static func select(_ m: inout MonitorModel, _ id: String) {
        m.selectedTask = m.sessions.flatMap(\.tasks).first { $0.id.description == id }!.id
        m.keepSelectionVisible()
    }

    static func rows(_ grid: CellGrid, _ rows: ScreenLayout.Rows) -> [String] {
        (rows.bodyTop..<rows.top + rows.height).map { grid.rowText($0) }
    }

    @Test func theDetailPaneIsAsTallAsItsContentAndTheTableTakesTheRest() {
        var m = Fixtures.model(width: 120, height: 40)
        Self.select(&m, "1.3")  // a finished data task: a few lines only
        let lines = ScreenRenderer.detailContent(m)
        let layout = m.layout
        #expect(layout.detail?.height == lines.count + 1)
        var long = m
        Self.select(&long, "1.1")
        #expect(long.layout.detail!.height > layout.detail!.height)
        #expect(layout.tasks.height - long.layout.tasks.height == long.layout.detail!.height - layout.detail!.height)
        // No blank rows inside the pane.
        let grid = ScreenRenderer.render(m)
        #expect(Self.rows(grid, layout.detail!).allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
    }

    @Test func theEventLogIsNoTallerThanItsEvents() {
        var m = Fixtures.model(width: 120, height: 40, detail: false)
        m.events = Array(m.events.prefix(2))
        let layout = m.layout
        #expect(layout.events?.height == 3)  // title and the two events
        let grid = ScreenRenderer.render(m)
        #expect(Self.rows(grid, layout.events!).allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        // The rows the log does not need stay with the task table.
        #expect(layout.sessions!.height + layout.tasks.height + layout.events!.height == 40 - 3)
    }

    @Test func tabFocusesTheDetailWhereTheArrowsScrollItToTheHeaders() {
        var m = Fixtures.model(width: 80, height: 24)
        let selected = m.selectedTask
        (m, _) = Reducer.handleKey(m, .tab)
        #expect(m.focus == .detail)
        var grid = ScreenRenderer.render(m)
        let detail = m.layout.detail!
        #expect(grid.rowText(detail.top).hasPrefix("━ Task 1.1 lines 1-"))
        #expect(!grid.render().contains("Set-Cookie"))  // below the fold at 80x24
        (m, _) = Reducer.handleKey(m, .end)
        let lines = ScreenRenderer.detailContent(m).count
        #expect(m.detailScroll == lines - detail.bodyHeight)
        #expect(m.selectedTask == selected)  // the keys scrolled, they did not select
        grid = ScreenRenderer.render(m)
        #expect(grid.rowText(detail.top + detail.height - 1).contains("Set-Cookie: ••••"))
        #expect(grid.rowText(detail.top).contains("lines \(lines - detail.bodyHeight + 1)-\(lines) of \(lines)"))
        (m, _) = Reducer.handleKey(m, .pageUp)
        (m, _) = Reducer.handleKey(m, .up)
        #expect(m.detailScroll == 0)
        // Tab goes on to the sessions pane (no event log at 80x24 with the detail shown);
        // Shift-Tab back.
        (m, _) = Reducer.handleKey(m, .tab)
        #expect(m.focus == .sessions)
        (m, _) = Reducer.handleKey(m, .backTab)
        #expect(m.focus == .detail)
        (m, _) = Reducer.handleKey(m, .backTab)
        (m, _) = Reducer.handleKey(m, .backTab)
        #expect(m.focus == .sessions)
    }

    @Test func goldenFocusedAndScrolledDetail() {
        var m = Fixtures.model(width: 80, height: 24)
        (m, _) = Reducer.handleKey(m, .tab)
        (m, _) = Reducer.handleKey(m, .end)
        Golden.check(ScreenRenderer.render(m).render(), "detail-focused-scrolled-80x24")
    }

    @Test func hidingTheFocusedDetailGivesTheFocusBackAndAnotherTaskStartsAtTheTop() {
        var m = Fixtures.model(width: 80, height: 24)
        (m, _) = Reducer.handleKey(m, .tab)
        (m, _) = Reducer.handleKey(m, .down)
        #expect(m.detailScroll == 1)
        (m, _) = Reducer.handleKey(m, .tab)
        (m, _) = Reducer.handleKey(m, .tab)  // sessions, then tasks
        #expect(m.focus == .tasks)
        (m, _) = Reducer.handleKey(m, .down)
        #expect(m.detailScroll == 0)
        (m, _) = Reducer.handleKey(m, .tab)
        (m, _) = Reducer.handleKey(m, .enter)
        #expect(!m.detailShown && m.focus == .tasks)
    }

    @Test func everyCredentialHeaderIsMaskedAndURLSecretsRedacted() {
        var metrics = Fixtures.hop("https://example.test/x", start: 0, status: 200, phases: [1, 1, 1, 1, 1, 1])
        metrics.transactionMetrics[0].requestHeaders = [
            HTTPHeader("Authorization", "Basic dXNlcjpwYXNz"), HTTPHeader("Proxy-Authorization", "Bearer prox1"),
            HTTPHeader("Cookie", "sid=c00kie"), HTTPHeader("X-Api-Key", "k3y"), HTTPHeader("Accept", "*/*"),
        ]
        metrics.transactionMetrics[0].responseHeaders = [
            HTTPHeader("Set-Cookie", "sid=n3w; Path=/"), HTTPHeader("Location", "https://example.test/next?token=t0k&a=1"),
            HTTPHeader("Content-Type", "text/plain"),
        ]
        var m = MonitorModel()
        m.width = 140
        m.height = 40
        m.apply([SessionSnapshot(id: 1, name: "s", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: [
            Fixtures.task(1, 1, .completed, url: "https://example.test/x", status: 200, metrics: metrics),
        ])], at: 0)
        m.detailShown = true
        let text = ScreenRenderer.render(m).render()
        for secret in ["dXNlcjpwYXNz", "prox1", "c00kie", "k3y", "n3w", "t0k"] { #expect(!text.contains(secret), "\(secret)") }
        for masked in ["Authorization: ••••", "Proxy-Authorization: ••••", "Cookie: ••••", "Set-Cookie: ••••",
                       "X-Api-Key: REDACTED", "token=REDACTED&a=1", "Accept: */*", "Content-Type: text/plain"] {
            #expect(text.contains(masked), "\(masked)")
        }
    }

    @Test func theDetailHasTheTasksOwnSparkline() {
        var m = MonitorModel()
        m.width = 120
        m.height = 40
        m.detailShown = true
        // One second apart: 0, 100, 300, 600 KiB... a speed that rises.
        for (i, kib) in [0, 100, 300, 600, 1000, 1500].enumerated() {
            m.apply([SessionSnapshot(id: 1, name: "s", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: [
                Fixtures.task(1, 1, .running, url: "https://example.test/big", received: Int64(kib) * 1024, expected: 4 * Fixtures.mib),
            ])], at: Double(i))
        }
        let history = m.rates.taskHistory[TaskID(session: 1, task: 1)]!
        #expect(history.count == 6)
        let line = ScreenRenderer.detailContent(m).map { $0.map(\.text).joined() }.first { $0.hasPrefix("speed ") }
        #expect(line == "speed " + Sparkline.text(history, width: history.count, utf8: true) + "  peak \(Units.speed(history.max()!)), one block a second")
        #expect(line?.contains("█") == true)
    }

    @Test func oneETAFormatInTheRowTheDetailAndTheHeader() {
        var m = Fixtures.model(width: 200, height: 60)
        Self.select(&m, "1.1")
        let task = MonitorRound2Tests.task(11, in: m)
        let eta = Units.eta(ScreenRenderer.eta(task, m))
        #expect(eta != "--")
        let cell = ScreenRenderer.cell(.eta, task, model: m, width: 5, columns: TaskColumns.fit(width: 200, idWidth: 3), hops: [])
        #expect(cell.map(\.text).joined() == eta)
        let state = ScreenRenderer.stateLine(task, model: m).map(\.text).joined()
        #expect(state.hasSuffix("ETA \(eta)"))
        #expect(ScreenRenderer.overall(m).contains(" ETA "))
    }

    @Test func anHTTPErrorShowsItsStatusInsteadOfAPercentage() {
        let m = Fixtures.model(width: 120, height: 40)
        let task = MonitorRound2Tests.task(22, in: m)
        #expect(ScreenRenderer.progressCell(task, model: m, barWidth: 10) == [Span("404 Not Found", .barError)])
        #expect(ScreenRenderer.progressCell(task, model: m, barWidth: 6) == [Span("HTTP 404", .barError)])
        #expect(ScreenRenderer.progressCell(task, model: m, barWidth: 0) == [Span("404", .barError)])
        #expect(ScreenRenderer.httpOutcome(599, width: 15) == "HTTP 599")
    }
}
