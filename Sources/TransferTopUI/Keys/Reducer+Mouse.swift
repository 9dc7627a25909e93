import TransferModel

extension Reducer {
    /// A click selects the task or session under the pointer and focuses its pane (a click in
    /// the detail pane or event log focuses it); the wheel moves the pane under the pointer
    /// by `MouseEvent.wheelStep` rows, as the arrow keys would there (DECISIONS 63).
    ///
    /// A question waiting for `y` and a prompt being typed ignore the mouse: a stray click
    /// must neither answer nor abandon them. In the help, the wheel scrolls and a click closes.
    public static func handleMouse(_ model: MonitorModel, _ event: MouseEvent) -> (MonitorModel, Effect?) {
        if model.prompt != nil || model.confirmation != nil { return (model, nil) }
        if model.helpShown {
            switch event.kind {
            case .click: return (helpKey(model, nil), nil)
            case .wheelUp: return (helpKey(model, .selectUp, times: MouseEvent.wheelStep), nil)
            case .wheelDown: return (helpKey(model, .selectDown, times: MouseEvent.wheelStep), nil)
            }
        }
        var m = model
        let layout = m.layout
        guard !layout.isTooSmall, let pane = pane(at: event.row, in: layout) else { return (m, nil) }
        switch event.kind {
        case .click:
            m.statusMessage = nil
            m.focus = pane
            if pane == .tasks { clickTask(&m, row: event.row, rows: layout.tasks, visible: layout.visibleTaskRows) }
            if pane == .sessions, let rows = layout.sessions { clickSession(&m, row: event.row, rows: rows) }
        case .wheelUp, .wheelDown:
            // The pane under the pointer moves, the focus stays where the keyboard left it.
            let focus = m.focus
            m.focus = pane
            m.move(by: event.kind == .wheelUp ? -MouseEvent.wheelStep : MouseEvent.wheelStep)
            m.focus = focus
        }
        return (m, nil)
    }

    /// The pane whose rows (title included) hold screen row `row`; nil for the header,
    /// status line and footer.
    static func pane(at row: Int, in layout: ScreenLayout) -> Pane? {
        let panes: [(Pane, ScreenLayout.Rows?)] = [(.sessions, layout.sessions), (.tasks, layout.tasks),
                                                   (.detail, layout.detail), (.events, layout.events)]
        return panes.first { _, rows in rows.map { row >= $0.top && row < $0.top + $0.height } ?? false }?.0
    }

    /// Selects the task drawn on screen row `row` (below the title and headings), using the
    /// same first visible row as the renderer.
    static func clickTask(_ m: inout MonitorModel, row: Int, rows: ScreenLayout.Rows, visible: Int) {
        let list = TaskList(m)
        let offset = row - (rows.top + 2)
        guard offset >= 0, offset < visible else { return }
        let selected = m.selectedTask.flatMap { list.position(of: $0) } ?? 0
        let top = ScreenRenderer.scrollTop(selected: selected, scroll: m.taskScroll, visible: visible, count: list.count)
        guard top + offset < list.count else { return }
        let task = list[top + offset]
        if task.id != m.selectedTask { m.detailScroll = 0 }
        m.selectedTask = task.id
        m.selectedSession = task.sessionID
        m.taskScroll = top
    }

    static func clickSession(_ m: inout MonitorModel, row: Int, rows: ScreenLayout.Rows) {
        let offset = row - rows.bodyTop
        guard offset >= 0, offset < rows.bodyHeight else { return }
        let selected = m.sessions.firstIndex { $0.id == m.selectedSession } ?? 0
        let top = ScreenRenderer.scrollTop(selected: selected, scroll: 0, visible: rows.bodyHeight, count: m.sessions.count)
        guard top + offset < m.sessions.count else { return }
        m.selectedSession = m.sessions[top + offset].id
    }
}
