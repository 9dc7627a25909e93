import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// Click selects, wheel scrolls. tmux cannot click for a test, so the pure half is
/// tested here: a click at a cell found on the in-memory screen, through the reducer, and the
/// screen drawn again. (The curses half only turns KEY_MOUSE into a `MouseEvent`.)
@Suite struct MouseTests {
    /// The screen row whose text contains `text`.
    static func row(_ grid: CellGrid, containing text: String) -> Int? {
        (0..<grid.height).first { grid.rowText($0).contains(text) }
    }

    @Test func aClickOnATaskRowSelectsItAndFocusesTheTable() throws {
        var m = Fixtures.model(width: 120, height: 40)
        m.focus = .sessions
        let y = try #require(Self.row(ScreenRenderer.render(m), containing: " 2.2 "))
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 30, row: y))
        #expect(m.selectedTask == TaskID(session: 2, task: 2))
        #expect(m.selectedSession == 2)
        #expect(m.focus == .tasks)
        let grid = ScreenRenderer.render(m)
        #expect(grid[0, y].grapheme == "›" && grid[1, y].role == .selection)
        #expect(grid.render().contains("Task 2.2"))
    }

    @Test func goldenAfterAClickOnTheHTTPError() throws {
        var m = Fixtures.model(width: 120, height: 40)
        let y = try #require(Self.row(ScreenRenderer.render(m), containing: " 2.2 "))
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 30, row: y))
        Golden.check(ScreenRenderer.render(m).render(), "mouse-click-2.2-120x40")
    }

    @Test func aClickOnTheHeadingsOrBelowTheLastTaskSelectsNothing() throws {
        var m = Fixtures.model(width: 120, height: 40)
        let before = m.selectedTask
        let headings = try #require(Self.row(ScreenRenderer.render(m), containing: " ID "))
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 5, row: headings))
        #expect(m.selectedTask == before && m.focus == .tasks)
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 5, row: 0))  // the header line
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 5, row: 39))  // the footer
        #expect(m.selectedTask == before)
    }

    @Test func aClickOnASessionSelectsIt() throws {
        var m = Fixtures.model(width: 120, height: 40)
        let y = try #require(Self.row(ScreenRenderer.render(m), containing: "3 limited"))
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 10, row: y))
        #expect(m.selectedSession == 3 && m.focus == .sessions)
    }

    @Test func theWheelScrollsThePaneUnderThePointerAndLeavesTheFocus() throws {
        var m = Fixtures.model(width: 80, height: 24)
        let detail = try #require(m.layout.detail)
        (m, _) = Reducer.handleMouse(m, MouseEvent(.wheelDown, column: 10, row: detail.bodyTop))
        #expect(m.detailScroll == Swift.min(MouseEvent.wheelStep, ScreenRenderer.detailContent(m).count - detail.bodyHeight))
        #expect(m.focus == .tasks && m.selectedTask == TaskID(session: 1, task: 1))
        (m, _) = Reducer.handleMouse(m, MouseEvent(.wheelUp, column: 10, row: detail.bodyTop))
        #expect(m.detailScroll == 0)
        // Over the table the wheel moves the selection, three rows a notch.
        (m, _) = Reducer.handleMouse(m, MouseEvent(.wheelDown, column: 10, row: m.layout.tasks.top + 3))
        #expect(m.selectedTask == TaskID(session: 1, task: 4))
        let grid = ScreenRenderer.render(m)
        #expect(grid.rowText(try #require(Self.row(grid, containing: "1.4 "))).hasPrefix("›"))
    }

    @Test func aClickInTheDetailOrLogFocusesIt() throws {
        var m = Fixtures.model(width: 120, height: 40)
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 3, row: m.layout.detail!.bodyTop))
        #expect(m.focus == .detail)
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 3, row: m.layout.events!.top))
        #expect(m.focus == .events)
    }

    @Test func questionsAndPromptsIgnoreTheMouseAndHelpClosesOnAClick() {
        var m = Fixtures.model(width: 80, height: 24)
        (m, _) = Reducer.handleKey(m, .char("c"))
        #expect(m.confirmation != nil)
        let y = m.layout.tasks.top + 3
        var after = Reducer.handleMouse(m, MouseEvent(.click, column: 5, row: y)).0
        #expect(after.confirmation == m.confirmation && after.selectedTask == m.selectedTask)
        m.confirmation = nil
        (m, _) = Reducer.handleKey(m, .char("/"))
        after = Reducer.handleMouse(m, MouseEvent(.click, column: 5, row: y)).0
        #expect(after.prompt == m.prompt && after.selectedTask == m.selectedTask)
        m.prompt = nil
        (m, _) = Reducer.handleKey(m, .char("?"))
        (m, _) = Reducer.handleMouse(m, MouseEvent(.wheelDown, column: 5, row: 5))
        #expect(m.helpShown && m.helpScroll == MouseEvent.wheelStep)
        (m, _) = Reducer.handleMouse(m, MouseEvent(.click, column: 5, row: 5))
        #expect(!m.helpShown)
    }

    @Test func aTinyTerminalTakesClicksWithoutEffectOrCrash() {
        for (w, h) in [(0, 0), (39, 9), (40, 10)] {
            var m = Fixtures.model(width: w, height: h)
            for y in -1...h + 1 {
                for kind in [MouseEvent.Kind.click, .wheelUp, .wheelDown] {
                    (m, _) = Reducer.handleMouse(m, MouseEvent(kind, column: 0, row: y))
                }
            }
            #expect(ScreenRenderer.render(m).cells.count == w * h)
        }
    }
}
