import TransferModel

extension MonitorModel {
    /// The layout this model would be drawn with (for page sizes and scrolling).
    var layout: ScreenLayout {
        ScreenLayout(width: width, height: height, detailShown: detailShown, sessionCount: sessions.count,
                     taskCount: TaskList(sessions: sessions, filter: filter).count,
                     detailLines: detailShown ? ScreenRenderer.detailContent(self).count : nil, eventCount: events.count)
    }

    /// Rows a page key moves: the rows the focused pane shows, at least one.
    var pageSize: Int {
        switch focus {
        case .tasks: return Swift.max(1, layout.visibleTaskRows)
        case .sessions: return Swift.max(1, layout.sessions?.bodyHeight ?? 1)
        case .detail: return Swift.max(1, layout.detail?.bodyHeight ?? 1)
        case .events: return Swift.max(1, layout.events?.bodyHeight ?? 1)
        }
    }

    /// Tab cycles through the panes that are on screen now (Shift-Tab backwards: `step` -1).
    func nextPane(step: Int = 1) -> Pane {
        let l = layout
        let shown: [Pane] = [l.sessions != nil ? .sessions : nil, .tasks, l.detail != nil ? .detail : nil,
                             l.events != nil ? .events : nil].compactMap { $0 }
        let i = shown.firstIndex(of: focus).map { ($0 + step + shown.count) % shown.count } ?? 0
        return shown[i]
    }

    /// Moves the focused pane's selection by `delta` rows, clamped to its ends.
    mutating func move(by delta: Int) {
        switch focus {
        case .tasks: moveTask(by: delta)
        case .sessions: moveSession(by: delta)
        case .detail:
            let l = layout
            let lines = ScreenRenderer.detailContent(self).count
            let maxScroll = Swift.max(0, lines - (l.detail?.bodyHeight ?? 0))
            detailScroll = Swift.min(maxScroll, Swift.max(0, clampedAdd(detailScroll, delta)))
        case .events:
            // Up looks back into older events: the scroll grows as the selection moves up.
            let maxBack = Swift.max(0, events.count - (layout.events?.bodyHeight ?? 0))
            eventScroll = Swift.min(maxBack, Swift.max(0, clampedAdd(eventScroll, -delta)))
        }
    }

    mutating func moveTask(by delta: Int) {
        let list = TaskList(self)
        guard list.count > 0 else { return }
        let current = selectedTask.flatMap { list.position(of: $0) } ?? -1
        let next = Swift.min(list.count - 1, Swift.max(0, clampedAdd(current, delta)))
        if list[next].id != selectedTask { detailScroll = 0 }
        selectedTask = list[next].id
        selectedSession = list[next].sessionID
        keepSelectionVisible()
    }

    mutating func moveSession(by delta: Int) {
        guard !sessions.isEmpty else { return }
        let current = sessions.firstIndex { $0.id == selectedSession } ?? 0
        selectedSession = sessions[Swift.min(sessions.count - 1, Swift.max(0, clampedAdd(current, delta)))].id
    }

    /// Scrolls the task table so the selected row is on screen, moving as little as possible.
    public mutating func keepSelectionVisible() {
        let list = TaskList(self)
        guard let row = selectedTask.flatMap({ list.position(of: $0) }) else { return }
        taskScroll = ScreenRenderer.scrollTop(selected: row, scroll: taskScroll, visible: layout.visibleTaskRows, count: list.count)
    }

    func clampedAdd(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? Int.max : Int.min) : sum
    }
}
