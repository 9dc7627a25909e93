import Foundation
import TransferModel

extension ScreenRenderer {
    /// The totals line. Pieces are dropped from the least useful end until the line fits.
    static func drawHeader(_ grid: inout CellGrid, _ model: MonitorModel) {
        // A breached `--slo` budget turns the whole line to the error colour and is named
        // right after the program's name, so it survives any width (DECISIONS 191).
        let role: StyleRole = model.budgetBreach == nil ? .header : .error
        grid.fill(role: role, column: 0, row: 0, width: grid.width, height: 1)
        var pieces = headerPieces(model)
        if let breach = model.budgetBreach { pieces.insert(breach, at: min(1, pieces.count)) }
        // `-k`: said first after the name, in the error colour, so it is never cut off.
        let unverified = model.headerTotals.unverifiedTLS
        // From the configuration at start (`-k`), counted once hops have completed unverified.
        let warning = unverified > 0 ? "TLS NOT VERIFIED (\(unverified))" : model.insecureConfiguration ? "TLS NOT VERIFIED (-k)" : ""
        let reserved = warning.isEmpty ? 0 : DisplayWidth.of(warning) + 2
        while pieces.count > 1, DisplayWidth.of(pieces.joined(separator: "  ")) + reserved > grid.width { pieces.removeLast() }
        guard !warning.isEmpty, let name = pieces.first else {
            grid.write(pieces.joined(separator: "  "), column: 0, row: 0, role: role)
            return
        }
        var x = grid.write(name + "  ", column: 0, row: 0, role: role)
        x = grid.write(warning, column: x, row: 0, role: .error)
        grid.write(([""] + pieces.dropFirst()).joined(separator: "  "), column: x, row: 0, role: role)
    }

    /// In order of importance: name, tasks per state, speeds, sessions, frame time.
    static func headerPieces(_ model: MonitorModel) -> [String] {
        let counts = model.headerTotals.counts
        let states = DisplayState.allCases.filter { counts[$0] > 0 }
            .map { "\($0.symbol(utf8: model.utf8))\(counts[$0])" }.joined(separator: " ")
        let arrows = model.utf8 ? ("↓", "↑") : ("v", "^")
        var pieces = [
            "transfertop",
            taskCount(model) + (states.isEmpty ? "" : " " + states),
            "\(arrows.0)\(Units.speed(model.rates.down.bytesPerSecond)) \(arrows.1)\(Units.speed(model.rates.up.bytesPerSecond))",
            limits(model),
            overall(model),
            Units.count(model.sessions.count, "session"),
        ].filter { !$0.isEmpty }
        // The frame time is for whoever tunes the renderer, not for users (`--debug`).
        if model.debug { pieces.append("frame \(frameTime(model.frameTimeMs))") }
        return pieces
    }

    /// The target session's live limits once one was changed or a task has its own:
    /// `max 500 KiB/s 3/host 2 limited` (DECISIONS 176-177). Short, and right after the speeds
    /// it bounds, so it stays on an 80-column header.
    static func limits(_ model: MonitorModel) -> String {
        guard let s = model.session(model.targetSessionID) else { return "" }
        let limited = s.tasks.filter { $0.rateLimit > 0 && $0.state != .completed }.count
        guard s.limitsChanged || s.rateLimit > 0 || limited > 0 else { return "" }
        var words: [String] = []
        if s.rateLimit > 0 { words.append("max \(RateText.shown(s.rateLimit))") }
        if s.maxConnectionsPerHost > 0 { words.append("\(s.maxConnectionsPerHost)/host") }  // 0: not known (a daemon's)
        if limited > 0 { words.append("\(limited) limited") }
        return words.joined(separator: " ")
    }

    /// `12 tasks`, each URL once (a download continued with R and its continuation are one);
    /// with URLs of a list not started yet, `ended/started/total tasks`: `315/1275/2000 tasks`.
    static func taskCount(_ model: MonitorModel) -> String {
        let all = model.headerTotals
        guard model.notStarted > 0 else { return Units.count(all.urls, "task") }
        return "\(all.ended)/\(all.urls)/\(all.urls + model.notStarted) tasks"
    }

    /// `12.0 MiB/48.0 MiB 25% ETA 1m05s`: every task of known size together, `48.0 MiB+` when
    /// more will come (tasks queued without a size yet, list lines not started). Those are
    /// expected to be as large as the sized tasks on average, so the percentage and the ETA
    /// count them. The ETA is when the last task should end: the slowest running task's own
    /// ETA, or all that remains (with the estimate) at the aggregate speed when that is later
    /// (the same moving averages as the per-task speeds); empty when no task has a known size.
    static func overall(_ model: MonitorModel) -> String {
        let all = model.headerTotals
        let (done, total) = (all.done, all.total)
        guard total > 0 else { return "" }
        let pending = all.unsized + model.notStarted
        let estimate = all.sized > 0 ? Double(all.expected) / Double(all.sized) * Double(pending) : 0
        let remaining = Double(all.remaining) + estimate
        let speed = model.rates.down.bytesPerSecond + model.rates.up.bytesPerSecond
        let aggregate = speed > 0 ? remaining / speed : nil
        let eta = remaining <= 0 ? "" : " ETA " + Units.eta(slowestTaskETA(model).map { Swift.max($0, aggregate ?? 0) } ?? aggregate)
        let percent = ProgressBar.percent(Double(done) / (Double(total) + estimate)).trimmingCharacters(in: .whitespaces)
        return "\(Units.bytes(done))/\(Units.bytes(total))\(pending > 0 ? "+" : "") \(percent)\(eta)"
    }

    /// The latest end among running tasks of known size at their own speeds (a task a tenth as
    /// fast as the rest sets the header's ETA, as it will set when the run ends).
    static func slowestTaskETA(_ model: MonitorModel) -> Double? {
        var latest: Double?
        for session in model.sessions {
            for t in session.tasks where t.state == .running {
                guard let e = eta(t, model) else { continue }
                latest = Swift.max(latest ?? 0, e)
            }
        }
        return latest
    }

    static func frameTime(_ ms: Double) -> String {
        let tenths = NumericBounds.clampedInt((ms * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)ms"
    }

    /// One line per session: name, kind, state, tasks per state, speed.
    static func drawSessions(_ grid: inout CellGrid, _ model: MonitorModel, _ rows: ScreenLayout.Rows) {
        drawTitle(&grid, row: rows.top, title: [Span("Sessions \(model.sessions.count)", .title)],
                  focused: model.focus == .sessions, utf8: model.utf8)
        let selected = model.sessions.firstIndex { $0.id == model.selectedSession } ?? 0
        let top = scrollTop(selected: selected, scroll: 0, visible: rows.bodyHeight, count: model.sessions.count)
        for (i, session) in model.sessions.enumerated().dropFirst(top).prefix(rows.bodyHeight) {
            let y = rows.bodyTop + i - top
            drawSessionRow(&grid, session, model: model, row: y)
            if session.id == model.selectedSession { markSelected(&grid, row: y, utf8: model.utf8, strong: model.focus == .sessions) }
        }
    }

    static func drawSessionRow(_ grid: inout CellGrid, _ s: SessionSnapshot, model: MonitorModel, row y: Int) {
        let speed = Units.speed(model.rates.speed(ofSession: s.id))
        let speedColumn = grid.width - 11
        // A background session has no id of this process: "bg" stands in its place.
        let id = model.isDaemonSession(s.id) ? "bg" : String(s.id)
        var x = grid.write(TextFit.pad("\(id) \(s.name)", 20, ellipsis: ellipsis(model)), column: 2, row: y, limit: speedColumn)
        x = grid.write(" " + TextFit.pad(s.kind.name, 10), column: x, row: y, role: .dim, limit: speedColumn)
        // A background session whose daemon went away keeps its last rows; the state says so.
        let gone = model.goneDaemonSessions.contains(s.id)
        x = grid.write(" " + TextFit.pad(gone ? "daemon gone" : s.state.rawValue, 12) + " ", column: x, row: y,
                       role: gone ? .error : sessionRole(s.state), limit: speedColumn)
        let counts = model.totals[s.id]?.counts ?? StateCounts(s.tasks)
        let countsEnd = grid.write(counts.spans(utf8: model.utf8), column: x, row: y, limit: speedColumn - 1)
        // The speed history beside the speed, as wide as the row leaves room for (up to 30).
        let room = Swift.min(30, speedColumn - Swift.max(countsEnd, x + 20) - 1)
        if room >= 8, let states = model.segmentMaps[s.id] {
            // A segmented upload's map instead of the speed history (aria2's piece map).
            let spans = SegmentMapView.spans(states, width: room)
            grid.write(spans, column: speedColumn - spans.reduce(0) { $0 + DisplayWidth.of($1.text) } - 1, row: y, limit: speedColumn)
        } else if room >= 8, let history = model.rates.sessionHistory[s.id] {
            let line = Sparkline.text(history, width: room, utf8: model.utf8)
            grid.write(line, column: speedColumn - DisplayWidth.of(line), row: y, role: .phaseReceive)
        }
        if speedColumn > x { grid.write(TextFit.padLeft(speed, 11), column: speedColumn, row: y) }
    }

    static func sessionRole(_ state: SessionState) -> StyleRole {
        switch state {
        case .active: return .stateRunning
        case .invalidating: return .stateCanceling
        case .invalidated: return .dim
        }
    }

    /// A row in the selection role, with a `›` marker so it shows without colour too. Only
    /// the focused pane's selection takes the role; others keep just the marker.
    static func markSelected(_ grid: inout CellGrid, row: Int, utf8: Bool, strong: Bool) {
        grid.write(utf8 ? "›" : ">", column: 0, row: row, role: .selection)
        if strong { grid.setRole(.selection, column: 0, row: row, width: grid.width) }
    }

    /// The first row to show so that `selected` is visible, moving as little as possible.
    static func scrollTop(selected: Int, scroll: Int, visible: Int, count: Int) -> Int {
        guard visible > 0 else { return 0 }
        var top = Swift.min(scroll, selected)
        if selected >= top + visible { top = selected - visible + 1 }
        return Swift.max(0, Swift.min(top, count - visible))
    }

    static func ellipsis(_ model: MonitorModel) -> String { model.utf8 ? "…" : "~" }
}
