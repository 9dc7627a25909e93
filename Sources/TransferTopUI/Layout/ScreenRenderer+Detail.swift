import Foundation
import TransferModel

extension ScreenRenderer {
    /// The selected task: a summary line, the state, the speed history, the waterfall, then
    /// the last hop's headers. The pane is as tall as its lines (up to its share) and scrolls
    /// when focused (Tab), so headers below the fold can be read.
    static func drawDetail(_ grid: inout CellGrid, _ model: MonitorModel, _ rows: ScreenLayout.Rows, lines: [[Span]]) {
        let focused = model.focus == .detail
        let visible = rows.bodyHeight
        let top = Swift.min(model.detailScroll, Swift.max(0, lines.count - visible))
        var title = [Span(model.selectedTaskSnapshot.map { "Task \(model.taskLabel($0.id))" } ?? "Detail", .title)]
        if lines.count > visible, visible > 0 {
            title.append(Span(" lines \(top + 1)-\(Swift.min(lines.count, top + visible)) of \(lines.count)", .dim))
            if !focused, grid.width >= 60 { title.append(Span(" (Tab to scroll)", .dim)) }
        }
        drawTitle(&grid, row: rows.top, title: title, focused: focused, utf8: model.utf8)
        for (i, line) in lines.dropFirst(top).prefix(visible).enumerated() {
            grid.write(line, column: 1, row: rows.bodyTop + i)
        }
    }

    /// What the detail pane shows for the model's selection, at the model's width.
    public static func detailContent(_ model: MonitorModel) -> [[Span]] {
        guard let task = model.selectedTaskSnapshot else { return [[Span("no task selected", .dim)]] }
        return detailLines(task, model: model, width: model.width)
    }

    /// All the detail lines; the pane shows as many as fit, most important first.
    public static func detailLines(_ task: TaskSnapshot, model: MonitorModel, width: Int) -> [[Span]] {
        var lines = [summary(task, utf8: model.utf8)]
        lines.append(stateLine(task, model: model))
        if model.isDaemonSession(task.sessionID) {
            // What the daemon does not send (phases, headers) is not missing by accident.
            lines.append([Span("background: ", .dim), Span("run by the daemon, which sends states and bytes, no phases or headers"
                + (task.outputPath.map { "; file \($0)" } ?? ""), .text)])
        }
        if let states = model.segmentMaps[task.sessionID] {
            let count = "  " + SegmentMapView.count(states)
            lines.append([Span("segments ", .dim)] + SegmentMapView.spans(states, width: Swift.max(1, width - 11 - count.count))
                         + [Span(count, .dim)])
        }
        if let history = model.rates.taskHistory[task.id], history.count >= 2 {
            lines.append(speedHistoryLine(history, width: width - 2, utf8: model.utf8, average: averageSpeed(task, now: model.now)))
        }
        if let error = task.error { lines.append([Span("error: \(error.message)", .error)]) }
        if task.metrics.transactionMetrics.contains(where: { $0.isTLSVerified == false }) {
            lines.append([Span("TLS NOT VERIFIED (-k): the certificate and host name were not checked", .error)])
        }
        if let line = cacheLine(task) { lines.append(line) }
        lines += WaterfallView.lines(task.metrics, now: model.now, width: width - 2, utf8: model.utf8, monochrome: model.monochrome)
        if let last = task.metrics.transactionMetrics.last {
            lines += headerLines(request: last.requestHeaders, response: last.responseHeaders,
                                 width: width - 2, utf8: model.utf8)
        }
        return lines
    }

    /// Where the last response came from when the cache took part (`--cache`): the fetch type
    /// the CSV's `fetch_type` column and HAR's `_fetchType` record.
    static func cacheLine(_ t: TaskSnapshot) -> [Span]? {
        guard let last = t.metrics.transactionMetrics.last else { return nil }
        switch last.fetchTypeName {
        case "local-cache": return [Span("fetch: ", .dim), Span("local cache", .title), Span(" (no request was sent)", .dim)]
        case "revalidated": return [Span("fetch: ", .dim), Span("revalidated", .title), Span(" (the server answered 304; the body came from the cache)", .dim)]
        default: return nil
        }
    }

    /// `speed ▁▂▅█▇▆  peak 3.2 MiB/s, one block a second`: the task's own sparkline, the
    /// same drawing as the sessions pane's. When no sample saw the task move (its bytes came
    /// before the monitor's first sample of it, then it stalled: `peak 0 B/s` after 64 KiB),
    /// the peak is its average, the least it must have reached.
    static func speedHistoryLine(_ history: [Double], width: Int, utf8: Bool, average: Double = 0) -> [Span] {
        let sampled = history.suffix(60).max() ?? 0
        let peak = "  peak \(Units.speed(sampled > 0 ? sampled : average)), one block a second"
        let room = Swift.min(TransferRates.historyLength, width - 6 - DisplayWidth.of(peak))
        guard room >= 4 else { return [Span("speed ", .dim), Span(Sparkline.text(history, width: Swift.max(1, width - 6), utf8: utf8), .phaseReceive)] }
        let line = Sparkline.text(history, width: room, utf8: utf8)
        return [Span("speed ", .dim), Span(line, .phaseReceive), Span(peak, .dim)]
    }

    /// The task's bytes over the time since the first response byte of its last hop (the one
    /// whose body it keeps; its start when none yet), until its end or now; 0 when no time has
    /// passed.
    static func averageSpeed(_ t: TaskSnapshot, now: Date) -> Double {
        let start = t.metrics.transactionMetrics.last?.responseStartDate ?? t.metrics.taskIntervalStart
        let seconds = (t.metrics.taskIntervalEnd ?? now).timeIntervalSince(start)
        let bytes = TransferRates.progressBytes(t) - (t.resumeOffset ?? 0)
        return seconds > 0 && bytes > 0 ? Double(bytes) / seconds : 0
    }

    /// `GET example.com/a → 200 h2  12.3 MiB/100 MiB  resumable`
    static func summary(_ t: TaskSnapshot, utf8: Bool) -> [Span] {
        var spans = [Span("\(t.method) ", .title), Span(ScreenSecrets.url(t.currentURL))]
        if let code = t.statusCode { spans += [Span(utf8 ? " → " : " -> ", .dim), Span(String(code), httpRole(code))] }
        if let p = t.networkProtocolName { spans.append(Span(" \(p)", .dim)) }
        spans.append(Span("  \(sizeLabel(t))"))
        if t.metrics.redirectCount > 0 { spans.append(Span("  \(t.metrics.redirectCount) redirects", .dim)) }
        if let offset = t.resumeOffset { spans.append(Span("  resumed at \(Units.bytes(offset))", .dim)) }
        if t.isResumable { spans.append(Span("  resumable", .dim)) }
        if t.rateLimit > 0 { spans.append(Span("  limit \(RateText.shown(t.rateLimit))", .dim)) }
        return spans
    }

    /// `state: queued (waiting for a connection to example.test: 6 per host)`, `state: running,
    /// wait`, `state: completed, HTTP 404`: the state in the mission's words with its detail.
    static func stateLine(_ t: TaskSnapshot, model: MonitorModel) -> [Span] {
        let state = DisplayState(t)
        var spans = [Span("state: ", .dim), Span(state.label, state.role)]
        if let outcome = state.outcome(t) {
            spans.append(Span(", \(outcome)", state.role))
        } else if state == .queued {
            let limit = model.session(t.sessionID).flatMap { $0.maxConnectionsPerHost > 0 ? " (\($0.maxConnectionsPerHost) per host)" : nil } ?? ""
            spans.append(Span(", waiting for a connection to \(URLText.url(t.currentURL)?.host ?? "the host")\(limit)", .stateQueued))
        } else if state == .canceling {
            spans.append(Span(", stopping the transfer", .dim))
        } else if state == .suspended, let d = model.suspendedFor(t.id), d >= MonitorModel.longSuspension {
            spans.append(Span(", for \(Units.eta(d)): the server may have closed the connection", .stateCanceling))
        } else if let phase = Waterfall.hops(t.metrics, now: model.now).last?.currentPhase {
            spans.append(Span(", \(phase.label)", phase.role))
        }
        if state == .running {
            // The row's numbers in words: the same speed and the same ETA format.
            spans.append(Span(", \(Units.speed(model.rates.speed(of: t.id))), ETA \(Units.eta(eta(t, model)))", .dim))
        }
        return spans
    }

    /// Request and response headers side by side (stacked when narrow), secrets masked.
    static func headerLines(request: [HTTPHeader], response: [HTTPHeader], width: Int, utf8: Bool) -> [[Span]] {
        // No headings over nothing: a row each that says no more than a missing block would.
        guard !request.isEmpty || !response.isEmpty else { return [] }
        let left = [[Span("Request headers", .title)]] + request.map { headerLine($0, utf8: utf8) }
        let right = [[Span("Response headers", .title)]] + response.map { headerLine($0, utf8: utf8) }
        guard width >= 60 else { return left + right }
        let half = width / 2
        return (0..<Swift.max(left.count, right.count)).map { i in
            let l = i < left.count ? clip(left[i], half - 1) : []
            let pad = half - DisplayWidth.of(l.map(\.text).joined())
            return l + [Span(String(repeating: " ", count: pad))] + (i < right.count ? right[i] : [])
        }
    }

    static func headerLine(_ h: HTTPHeader, utf8: Bool) -> [Span] {
        let (value, masked) = ScreenSecrets.headerValue(h, utf8: utf8)
        return [Span("\(h.name): ", .dim), Span(value, masked ? .secret : .text)]
    }

    /// Spans cut to `width` columns in total.
    static func clip(_ spans: [Span], _ width: Int) -> [Span] {
        var out: [Span] = []
        var room = width
        for s in spans where room > 0 {
            let t = TextFit.truncate(s.text, room, ellipsis: "…")
            out.append(Span(t, s.role))
            room -= DisplayWidth.of(t)
        }
        return out
    }
}
