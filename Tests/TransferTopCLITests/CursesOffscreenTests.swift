import CNcurses
import Foundation
import Testing
import TransferModel
@testable import TransferTopCLI
import MonitorFixtures
import TransferTopUI

/// The real ncurses path, off-screen. A fixed model is rendered by the pure
/// `ScreenRenderer`, flushed through `CursesScreen` (the monitor's own backend) into an
/// ncurses terminal that writes to /dev/null, and ncurses' virtual screen is read back cell by
/// cell. The golden is the pure render of the same model: the test proves the flush is
/// faithful (wide, box-drawing and block characters, styles, and the diff flush of a second
/// frame). ncurses is one global state per process, hence `.serialized`.
@Suite(.serialized) struct CursesOffscreenTests {
    static let terminal = "xterm-256color"
    static let environment = ["TERM": terminal]

    /// An off-screen screen of the given size with the default theme applied.
    static func screen(columns: Int, lines: Int) throws -> CursesScreen {
        let screen = try #require(CursesScreen(offscreen: terminal, lines: lines, columns: columns, environment: environment),
                                  "newterm(\(terminal)) on /dev/null failed")
        #expect(screen.size.width == columns && screen.size.height == lines)
        screen.apply(Theme.builtInDefault.resolved(depth: screen.depth))
        return screen
    }

    /// Every cell read back equals the grid's: text, wide-character halves and style.
    static func expectFaithful(_ screen: CursesScreen, _ grid: CellGrid, except skipped: Set<[Int]> = [],
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let cells = screen.readBack(.physical)
        #expect(cells.count == grid.height && cells.allSatisfy { $0.count == grid.width }, sourceLocation: sourceLocation)
        guard cells.count == grid.height, cells.allSatisfy({ $0.count == grid.width }) else { return }
        var mismatches: [String] = []
        for y in 0..<grid.height {
            for x in 0..<grid.width where !skipped.contains([x, y]) {
                let want = grid[x, y], got = cells[y][x]
                if want.isContinuation != got.isContinuation || (!want.isContinuation && want.grapheme != got.text) {
                    mismatches.append("(\(x),\(y)) text \(want.grapheme.debugDescription) got \(got.text.debugDescription)"
                                      + " continuation \(want.isContinuation)/\(got.isContinuation)")
                    continue
                }
                if want.isContinuation { continue }
                let i = want.role.index
                let wantPair = Int16(truncatingIfNeeded: screen.pairs[i] >> 8)
                if got.attributes != screen.attributes[i] || got.pair != wantPair {
                    mismatches.append("(\(x),\(y)) role \(want.role) attr \(got.attributes) pair \(got.pair)"
                                      + ", want attr \(screen.attributes[i]) pair \(wantPair)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) cells differ:\n\(mismatches.prefix(20).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: [(80, 24), (40, 10), (120, 40)])
    func firstFrameReadsBackAsThePureRender(width: Int, height: Int) throws {
        let screen = try Self.screen(columns: width, lines: height)
        defer { screen.end() }
        let grid = ScreenRenderer.render(Fixtures.model(width: width, height: height, includeWideTask: true))
        screen.flush(grid)
        #expect(screen.readBackText(.physical) == grid.render())
        #expect(screen.readBackText(.drawn) == grid.render())
        Self.expectFaithful(screen, grid)
    }

    /// The selected task has a CJK URL: wide characters in the task list and the detail pane.
    @Test(arguments: [(80, 24), (40, 10)])
    func wideCharactersKeepTheirColumns(width: Int, height: Int) throws {
        let screen = try Self.screen(columns: width, lines: height)
        defer { screen.end() }
        var model = Fixtures.model(width: width, height: height, includeWideTask: true)
        model.selectedTask = Fixtures.wideTask
        let grid = ScreenRenderer.render(model)
        #expect(grid.cells.contains { $0.isContinuation }, "the fixture must draw wide characters")
        screen.flush(grid)
        #expect(screen.readBackText() == grid.render())
        Self.expectFaithful(screen, grid)
    }

    /// A second frame after one task's bytes change: CursesScreen redraws only the changed
    /// runs. Sentinels poked into ncurses between the frames, in cells the diff does not cover,
    /// must survive the flush (a full redraw would erase them); everything else must read back
    /// as the new pure render.
    @Test(arguments: [(80, 24), (40, 10)])
    func secondFrameRewritesOnlyWhatChanged(width: Int, height: Int) throws {
        let screen = try Self.screen(columns: width, lines: height)
        defer { screen.end() }
        var model = Fixtures.model(width: width, height: height, includeWideTask: true)
        model.selectedTask = Fixtures.wideTask
        let first = ScreenRenderer.render(model)
        screen.flush(first)
        Self.expectFaithful(screen, first)

        // Only the selected task's bytes (1 MiB -> 4 MiB of 8: its bar and percentage, beside
        // its wide URL, and the detail pane's totals at 80 columns).
        let wide = model.sessions[0].tasks.firstIndex { $0.id == Fixtures.wideTask }!
        model.sessions[0].tasks[wide].countOfBytesReceived = 4 * Fixtures.mib
        let second = ScreenRenderer.render(model)
        let runs = second.diff(from: first)
        #expect(!runs.isEmpty && runs.count < height, "a small change must be a few runs, got \(runs.count)")
        var covered = Set<[Int]>()
        for run in runs { for x in run.column..<(run.column + run.cells.count) { covered.insert([x, run.row]) } }
        #expect(covered.count < width * height / 4)

        // Sentinels on narrow, unchanged cells: the top-left corner, the bottom row, and one
        // beside the first changed run on its own row.
        var sentinels: [[Int]] = [[0, 0], [width - 2, height - 1]]
        if let run = runs.first { sentinels.append([run.column + run.cells.count < width - 1 ? width - 1 : 0, run.row]) }
        sentinels = sentinels.filter { !covered.contains($0) && !first[$0[0], $0[1]].isContinuation
            && !($0[0] + 1 < width && first[$0[0] + 1, $0[1]].isContinuation) }
        #expect(!sentinels.isEmpty)
        for s in sentinels { _ = mvaddstr(Int32(s[1]), Int32(s[0]), "#") }
        _ = refresh()

        screen.flush(second)
        let cells = screen.readBack(.physical)
        for s in sentinels { #expect(cells[s[1]][s[0]].text == "#", "sentinel at \(s) was redrawn") }
        Self.expectFaithful(screen, second, except: Set(sentinels))
        var expected = second
        for s in sentinels { expected[s[0], s[1]] = Cell("#") }
        #expect(screen.readBackText() == expected.render())
    }

    /// A resize-like invalidate redraws everything: the sentinels are gone.
    @Test func invalidateRedrawsEverything() throws {
        let screen = try Self.screen(columns: 80, lines: 24)
        defer { screen.end() }
        let grid = ScreenRenderer.render(Fixtures.model(width: 80, height: 24, includeWideTask: true))
        screen.flush(grid)
        _ = mvaddstr(0, 0, "#")
        _ = mvaddstr(23, 78, "#")
        _ = refresh()
        screen.invalidate()
        screen.flush(grid)
        #expect(screen.readBackText() == grid.render())
        Self.expectFaithful(screen, grid)
    }

    /// endwin + delscreen leave nothing behind: the locale is back, and a second off-screen
    /// terminal in the same process (of another size) works from a clean state.
    @Test func endLeavesNoStateBehind() throws {
        let locale = setlocale(LC_ALL, nil).map { String(cString: $0) }
        for (width, height) in [(80, 24), (40, 10), (80, 24)] {
            let screen = try Self.screen(columns: width, lines: height)
            let grid = ScreenRenderer.render(Fixtures.model(width: width, height: height, includeWideTask: true))
            // A fresh screen is blank: nothing of the previous one's frame survives.
            #expect(screen.readBackText().allSatisfy { $0 == "\n" })
            screen.flush(grid)
            #expect(screen.readBackText() == grid.render())
            screen.end()
            screen.end()  // idempotent
            #expect(tt_stdscr() == nil, "delscreen must leave no current screen")
            #expect(setlocale(LC_ALL, nil).map { String(cString: $0) } == locale)
        }
    }

    /// An emoji with VS16 (U+FE0F) must take the columns ncurses gives it (glibc's wcwidth: the
    /// base character's width); DisplayWidth once said 2, and ncurses then drew the rest of the
    /// row one column left of the grid. The row's text is the same either way, so only the
    /// cell-by-cell check sees it.
    @Test func emojiPresentationSelectorWidthMatchesNcurses() throws {
        let screen = try Self.screen(columns: 20, lines: 2)
        defer { screen.end() }
        var grid = CellGrid(width: 20, height: 2)
        grid.write("a\u{2764}\u{FE0F}b end", column: 0, row: 0)
        screen.flush(grid)
        #expect(screen.readBackText() == grid.render())
        Self.expectFaithful(screen, grid)
    }

    @Test func unknownTerminalFailsCleanly() {
        let locale = setlocale(LC_ALL, nil).map { String(cString: $0) }
        #expect(CursesScreen(offscreen: "no-such-terminal-xyz", lines: 24, columns: 80, environment: [:]) == nil)
        #expect(setlocale(LC_ALL, nil).map { String(cString: $0) } == locale)
    }
}
