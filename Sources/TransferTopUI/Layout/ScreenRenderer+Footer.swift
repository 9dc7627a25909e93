extension ScreenRenderer {
    /// The prompt being typed, else the status message, else the filter in use.
    static func drawStatus(_ grid: inout CellGrid, _ model: MonitorModel, row: Int, list: TaskList) {
        let cut = ellipsis(utf8: model.utf8)
        if let prompt = model.prompt {
            let label = promptLabel(prompt.purpose, model)
            let x = grid.write(label, column: 0, row: row, role: .keyHint)
            grid.write(prompt.text + (model.utf8 ? "▏" : "_"), column: x, row: row, role: .statusLine)
        } else if let c = model.confirmation {
            grid.writeFitted([Span(c.question, .error)], column: 0, row: row, ellipsis: cut)
        } else if let message = model.statusMessage {
            grid.writeFitted([Span(message, .statusLine)], column: 0, row: row, ellipsis: cut)
        } else if !model.filter.isEmpty {
            grid.writeFitted([Span("filter \"\(model.filter)\": \(Units.count(list.count, "task")) (/ to change)", .dim)],
                             column: 0, row: row, ellipsis: cut)
        }
    }

    /// What ends a line cut at the screen's edge.
    static func ellipsis(utf8: Bool) -> String { utf8 ? "…" : "..." }

    /// Tasks and sessions as the user names them (a daemon's `NAME:N`, not its row ids).
    static func promptLabel(_ purpose: Prompt.Purpose, _ model: MonitorModel) -> String {
        switch purpose {
        case .filter: return "filter: "
        case .newTaskURL(let session): return "new task in session \(session), URL: "
        case .taskRateLimit(let id): return "limit task \(model.taskLabel(id)) to (500K, 2M, 0 none): "
        case .sessionRateLimit(let session):
            let name = DaemonRows.owns(session) && model.session(session) != nil ? model.sessionLabel(session) : "session \(session)"
            return "limit \(name) to (500K, 2M, 0 none): "
        }
    }

    /// Key hints generated from the action table; whole hints only, as many as fit.
    /// A legend of the state symbols goes at the right end when the hints leave room for it
    /// (the help has the full legend at every width).
    static func drawFooter(_ grid: inout CellGrid, _ model: MonitorModel, row: Int, bindings: KeyBindings) {
        var x = 0
        let legend = footerLegend(utf8: model.utf8)
        let legendWidth = legend.reduce(0) { $0 + DisplayWidth.of($1.text) }
        // Wide terminals keep room for the legend; narrower ones give it up for the keys.
        let end = grid.width >= 160 ? grid.width - legendWidth - 1 : grid.width
        for action in footerOrder {
            let entry = ActionTable.info(action)
            guard var hint = entry.hint, let key = bindings.keys(for: entry.action).first else { continue }
            // Attached to a background session, q leaves the daemon's tasks running.
            if action == .quit, model.attachedSession != nil { hint = "detach" }
            let width = DisplayWidth.of("\(key) \(hint)")
            if x + width > end { break }
            x = grid.write(key.description, column: x, row: row, role: .keyHint)
            x = grid.write(" " + hint + "  ", column: x, row: row, role: .dim)
        }
        if x + legendWidth <= grid.width { grid.write(legend, column: grid.width - legendWidth, row: row) }
    }

    /// `◌queued ▶running ‖suspended ⊘canceling ✓ok !HTTP error ✗error ∅cancelled`
    static func footerLegend(utf8: Bool) -> [Span] {
        DisplayState.allCases.map { Span("\($0.symbol(utf8: utf8))\($0.legendWord)" + ($0 == .cancelled ? "" : " "), $0.role) }
    }

    /// Help and quit first so they are never cut off, then the task and session actions.
    static let footerOrder: [Action] = [
        .help, .quit, .suspend, .resume, .cancel, .cancelWithResumeData, .resumeFromResumeData, .newTask,
        .finishAndInvalidate, .invalidateAndCancel, .exportCSV, .filter, .sort, .toggleDetail, .nextTheme,
    ]

    /// The generated help over everything between the header and the status line; when it
    /// does not fit, the last row says so and the arrow keys scroll it.
    static func drawHelp(_ grid: inout CellGrid, bindings: KeyBindings, rows: Range<Int>, scroll: Int, utf8: Bool,
                         monochrome: Bool = false) {
        grid.fill(role: .text, column: 0, row: rows.lowerBound, width: grid.width, height: rows.count)
        let lines = HelpScreen.lines(bindings: bindings, utf8: utf8, monochrome: monochrome).dropFirst(scroll)
        let more = lines.count > rows.count
        for (i, line) in lines.prefix(more ? rows.count - 1 : rows.count).enumerated() {
            grid.writeFitted(line, column: 1, row: rows.lowerBound + i, ellipsis: ellipsis(utf8: utf8))
        }
        if more { grid.write((utf8 ? "↓" : "v") + " more: down/pgdn scroll", column: 1, row: rows.upperBound - 1, role: .dim) }
    }
}
