import Foundation
import TransferModel

extension ScreenRenderer {
    /// The task table: title, column headings, then only the rows that fit.
    static func drawTasks(_ grid: inout CellGrid, _ model: MonitorModel, _ rows: ScreenLayout.Rows, _ list: TaskList) {
        let visible = Swift.max(0, rows.height - 2)
        let selected = model.selectedTask.flatMap { list.position(of: $0) }
        let top = scrollTop(selected: selected ?? 0, scroll: model.taskScroll, visible: visible, count: list.count)
        let shown = (top..<Swift.min(list.count, top + visible)).map { list[$0] }
        let idWidth = shown.map { model.taskLabel($0.id).count }.max() ?? 2
        let columns = TaskColumns.fit(width: grid.width, idWidth: idWidth, set: model.columnSet)
        drawTitle(&grid, row: rows.top, title: taskTitle(model, list, top: top, shown: shown.count),
                  focused: model.focus == .tasks, utf8: model.utf8)
        if rows.height > 1 { drawHeadings(&grid, columns, row: rows.top + 1, files: model.columnSet == .files) }
        for (i, task) in shown.enumerated() {
            let y = rows.top + 2 + i
            drawTaskRow(&grid, task, model: model, columns: columns, row: y)
            if top + i == selected { markSelected(&grid, row: y, utf8: model.utf8, strong: model.focus == .tasks) }
        }
    }

    static func taskTitle(_ model: MonitorModel, _ list: TaskList, top: Int, shown: Int) -> [Span] {
        var title = [Span("Tasks \(list.count)", .title)]
        if !model.filter.isEmpty { title.append(Span(" filter: \(model.filter)", .statusLine)) }
        if model.sort != .none { title.append(Span(" sort: \(model.sort.rawValue)", .statusLine)) }
        if shown > 0, shown < list.count { title.append(Span(" \(top + 1)-\(top + shown) of \(list.count)", .dim)) }
        return title
    }

    static func drawHeadings(_ grid: inout CellGrid, _ columns: TaskColumns, row: Int, files: Bool = false) {
        var x = 1
        for (column, width) in columns.columns {
            let heading = files && column == .url ? "FILE" : column.heading
            let text = column.rightAligned ? TextFit.padLeft(heading, width) : TextFit.pad(heading, width, ellipsis: "")
            x = grid.write(text + " ", column: x, row: row, role: .title)
        }
    }

    static func drawTaskRow(_ grid: inout CellGrid, _ task: TaskSnapshot, model: MonitorModel, columns: TaskColumns, row y: Int) {
        var x = 1
        let hops = Waterfall.hops(task.metrics, now: model.now)
        for (column, width) in columns.columns {
            let spans = cell(column, task, model: model, width: width, columns: columns, hops: hops)
            let used = DisplayWidth.of(spans.map(\.text).joined())
            let start = column.rightAligned ? x + Swift.max(0, width - used) : x
            grid.write(spans, column: start, row: y, limit: x + width)
            x += width + 1
        }
    }

    /// One cell's content; `cell(_:)` never needs more than `width` columns, the grid clips.
    static func cell(_ column: TaskColumns.Column, _ t: TaskSnapshot, model: MonitorModel, width: Int,
                     columns: TaskColumns, hops: [WaterfallHop]) -> [Span] {
        let running = t.state == .running
        switch column {
        case .id: return [Span(model.taskLabel(t.id))]
        case .kind: return [Span(kindLabel(t.kind), .dim)]
        case .state: return [Span(DisplayState(t).label, DisplayState(t).role)]
        case .url:
            // `v` to files: the name the download has (or will have), else the URL.
            let name = model.columnSet == .files ? t.outputPath.map { String($0.split(separator: "/").last ?? Substring($0)) } : nil
            return [Span(TextFit.middle(name.map { TerminalText.safe($0) } ?? urlLabel(t, utf8: model.utf8), width, ellipsis: ellipsis(model)))]
        case .progress: return progressCell(t, model: model, barWidth: columns.barWidth)
        case .result: return resultCell(t, hops: hops, suspendedFor: model.suspendedFor(t.id))
        case .dns: return TaskPhases.cell(.dns, hops: hops, width: width, utf8: model.utf8)
        case .connect: return TaskPhases.cell(.connect, hops: hops, width: width, utf8: model.utf8)
        case .tls: return TaskPhases.cell(.tls, hops: hops, width: width, utf8: model.utf8)
        case .ttfb: return TaskPhases.cell(.wait, hops: hops, width: width, utf8: model.utf8)
        case .waterfall: return TaskPhases.miniWaterfall(t.metrics, hops: hops, now: model.now, width: width, utf8: model.utf8, monochrome: model.monochrome)
        case .size: return [Span(sizeLabel(t))]
        case .speed: return running && DisplayState(t) != .queued ? [Span(Units.speed(model.rates.speed(of: t.id)))] : []
        case .eta: return running && DisplayState(t) != .queued ? [Span(Units.eta(eta(t, model)), .dim)] : []
        case .proto: return [Span(t.networkProtocolName ?? "", .dim)]
        }
    }

    /// A completed task's outcome (`ok`, `HTTP 404`, `error`, `cancelled`); a queued task's
    /// reason; a running task's live phase (`wait` while waiting for the first byte).
    /// A task suspended longer than `MonitorModel.longSuspension` (a minute) says so, `idle
    /// >1m`, and the detail pane for how long: its server may have closed the connection.
    static func resultCell(_ t: TaskSnapshot, hops: [WaterfallHop], suspendedFor: TimeInterval? = nil) -> [Span] {
        let state = DisplayState(t)
        if state == .suspended, let d = suspendedFor, d >= MonitorModel.longSuspension {
            return [Span("idle >1m", .stateCanceling)]
        }
        // `-k`: a task whose certificate was not checked says so in red, even when it went well.
        if t.metrics.transactionMetrics.contains(where: { $0.isTLSVerified == false }) {
            return [Span((state.outcome(t) ?? "") + " !tls", .error)]
        }
        if let outcome = state.outcome(t) { return [Span(outcome, state.role)] }
        if state == .queued { return [Span("per-host", .stateQueued)] }
        guard state == .running || state == .canceling, let phase = TaskPhases.livePhase(hops: hops) else { return [] }
        return [Span(phase.label, phase.role)]
    }

    static func progressCell(_ t: TaskSnapshot, model: MonitorModel, barWidth: Int) -> [Span] {
        let (done, expected) = TransferRates.progress(t)
        let state = DisplayState(t)
        // A 404 whose error page arrived whole is not "100 %" of anything the user asked for:
        // the column says what came back instead (DECISIONS 62).
        if state == .httpError, let code = t.statusCode {
            return [Span(httpOutcome(code, width: barWidth > 0 ? barWidth + 5 : 4), .barError)]
        }
        var fraction = ProgressBar.fraction(done: done, expected: expected)
        if state == .failed {
            let percent = fraction.map { ProgressBar.percent($0) } ?? "   -"
            return ProgressBar.failed(fraction: fraction, width: barWidth, utf8: model.utf8)
                + [Span((barWidth > 0 ? " " : "") + percent, .barError)]
        }
        // An unknown size that completed is a full bar.
        let sizeUnknownAndOver = fraction == nil && (state == .completed || state.isError)
        if sizeUnknownAndOver { fraction = 1 }
        // Only a running task of unknown size animates; a stopped or queued one shows an empty bar.
        let still = fraction == nil && state != .running
        var bar = ProgressBar.spans(fraction: still ? 0 : fraction, width: barWidth, utf8: model.utf8, frame: model.frame)
        if state.isError { bar = bar.map { $0.role == .barFill ? Span($0.text, .barError) : $0 } }
        let percent = still || (sizeUnknownAndOver && state.isError) ? "   -" : ProgressBar.percent(fraction)
        return bar + [Span((barWidth > 0 ? " " : "") + percent, state.isError ? .barError : .text)]
    }

    /// `404 Not Found`, else `HTTP 404`, else `404`: the longest that fits `width`.
    static func httpOutcome(_ code: Int, width: Int) -> String {
        let phrase = HARExport.reasonPhrase(code)
        let candidates = (phrase.isEmpty ? [] : ["\(code) \(phrase)"]) + ["HTTP \(code)", "\(code)"]
        return candidates.first { DisplayWidth.of($0) <= width } ?? TextFit.truncate("\(code)", width, ellipsis: "")
    }

    static func eta(_ t: TaskSnapshot, _ model: MonitorModel) -> Double? {
        let (done, expected) = TransferRates.progress(t)
        guard expected > 0 else { return nil }
        return model.rates.tasks[t.id]?.eta(remaining: expected - done)
    }

    static func kindLabel(_ kind: TaskKind) -> String {
        switch kind {
        case .data: return "data"
        case .upload: return "up"
        case .download: return "down"
        }
    }

    /// The description if the task has one, else the URL without its scheme, password masked.
    static func urlLabel(_ t: TaskSnapshot, utf8: Bool) -> String {
        if let d = t.taskDescription, !d.isEmpty { return d }
        let url = ScreenSecrets.url(t.currentURL)
        return url.range(of: "://").map { String(url[$0.upperBound...]) } ?? url
    }

    static func sizeLabel(_ t: TaskSnapshot) -> String {
        let (done, expected) = TransferRates.progress(t)
        return Units.bytes(done) + "/" + (expected >= 0 ? Units.bytes(expected) : "?")
    }

    static func httpRole(_ code: Int) -> StyleRole {
        switch code {
        case 200..<300: return .httpSuccess
        case 300..<400: return .httpRedirect
        default: return .httpError
        }
    }
}
