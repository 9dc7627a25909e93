import Foundation
import TransferModel

/// Draws a whole `MonitorModel` into a `CellGrid`: the "view" of model-update-view (9).
///
/// Pure: the same model always gives the same grid. Only rows that are visible are laid out,
/// so the cost does not grow with the number of tasks beyond a few linear counts.
public enum ScreenRenderer {
    public static let tooSmallMessage = "terminal too small (need \(ScreenLayout.minimumWidth)x\(ScreenLayout.minimumHeight))"

    public static func render(_ model: MonitorModel, bindings: KeyBindings = .defaults) -> CellGrid {
        var grid = CellGrid(width: model.width, height: model.height)
        let list = TaskList(model)
        let detail = model.detailShown ? detailContent(model) : []
        let layout = ScreenLayout(width: grid.width, height: grid.height, detailShown: model.detailShown,
                                  sessionCount: model.sessions.count, taskCount: list.count,
                                  detailLines: model.detailShown ? detail.count : nil, eventCount: model.events.count)
        guard !layout.isTooSmall else {
            drawTooSmall(&grid)
            return grid
        }
        drawHeader(&grid, model)
        if let rows = layout.sessions { drawSessions(&grid, model, rows) }
        drawTasks(&grid, model, layout.tasks, list)
        if let rows = layout.detail { drawDetail(&grid, model, rows, lines: detail) }
        if let rows = layout.events { drawEvents(&grid, model, rows) }
        drawStatus(&grid, model, row: layout.statusRow, list: list)
        drawFooter(&grid, model, row: layout.footerRow, bindings: bindings)
        if model.helpShown { drawHelp(&grid, bindings: bindings, rows: 1..<layout.statusRow, scroll: model.helpScroll, utf8: model.utf8, monochrome: model.monochrome) }
        return grid
    }

    /// Centred on the middle row and cut to the width; 0x0 draws nothing.
    static func drawTooSmall(_ grid: inout CellGrid) {
        let text = TextFit.truncate(tooSmallMessage, grid.width)
        let column = Swift.max(0, (grid.width - DisplayWidth.of(text)) / 2)
        grid.write(text, column: column, row: grid.height / 2, role: .error)
    }

    /// A pane's title rule: `── Tasks 12 ──────`; the focused pane's rule is heavy (`━`/`=`)
    /// so focus is visible without colour.
    static func drawTitle(_ grid: inout CellGrid, row: Int, title: [Span], focused: Bool, utf8: Bool) {
        let rule = focused ? (utf8 ? "━" : "=") : (utf8 ? "─" : "-")
        grid.fill(rule, role: .border, column: 0, row: row, width: grid.width, height: 1)
        let x = grid.write(rule + " ", column: 0, row: row, role: .border)
        let end = grid.write(title, column: x, row: row, limit: grid.width - 2)
        grid.write(" ", column: end, row: row, role: .border)
    }
}
