import TransferModel

/// The "update" of model-update-view: keys and actions in, a new model and maybe an effect
/// out. Pure; the app performs the effect.
public enum Reducer {
    /// Routes a key: to the prompt being typed, to closing help, or through the bindings.
    public static func handleKey(_ model: MonitorModel, _ key: Key, bindings: KeyBindings = .defaults) -> (MonitorModel, Effect?) {
        if model.prompt != nil { return handlePromptKey(model, key) }
        if model.confirmation != nil { return answer(model, key) }
        var m = model
        if m.helpShown { return (helpKey(m, bindings.action(for: key)), nil) }
        if key == .escape {
            m.statusMessage = nil
            if !m.filter.isEmpty { m.filter = ""; m.normalizeSelection() }
            return (m, nil)
        }
        guard let action = bindings.action(for: key) else {
            m.statusMessage = "\(key) is not bound; press ? for help"
            return (m, nil)
        }
        let (next, effect) = reduce(m, action)
        return confirmIfDestructive(next, effect)
    }

    public static func reduce(_ model: MonitorModel, _ action: Action) -> (MonitorModel, Effect?) {
        var m = model
        m.statusMessage = nil
        switch action {
        case .selectUp: m.move(by: -1)
        case .selectDown: m.move(by: 1)
        case .pageUp: m.move(by: -m.pageSize)
        case .pageDown: m.move(by: m.pageSize)
        case .selectFirst: m.move(by: Int.min / 2)
        case .selectLast: m.move(by: Int.max / 2)
        case .nextPane: m.focus = m.nextPane()
        case .previousPane: m.focus = m.nextPane(step: -1)
        case .toggleDetail:
            m.detailShown.toggle()
            m.detailScroll = 0
            if !m.detailShown, m.focus == .detail { m.focus = .tasks }
            m.keepSelectionVisible()
        case .filter: m.prompt = Prompt(.filter, text: m.filter)
        case .columns:
            m.columnSet = m.columnSet.next
            m.statusMessage = m.columnSet.summary
        case .sort:
            m.sort = m.sort.next
            m.statusMessage = m.sort == .none ? "tasks in identifier order" : "tasks sorted by \(m.sort.rawValue)"
            m.keepSelectionVisible()
        case .help: m.helpShown.toggle(); m.helpScroll = 0
        case .nextTheme: return nextTheme(m)
        case .newTask: return newTask(m)
        case .newSession: return (m, .newSession)
        case .exportCSV: return (m, .exportCSV)
        case .quit: return (m, .quit)
        case .suspend, .resume, .cancel, .cancelWithResumeData, .resumeFromResumeData:
            return taskAction(m, action)
        case .finishAndInvalidate, .invalidateAndCancel:
            return sessionAction(m, action)
        case .retry, .limitTask, .limitSession, .moreConnections, .fewerConnections:
            return liveControl(m, action)
        }
        return (m, nil)
    }

    /// In the help screen the movement keys scroll it; any other key closes it, so nobody
    /// gets stuck in it.
    static func helpKey(_ model: MonitorModel, _ action: Action?, times: Int = 1) -> MonitorModel {
        var m = model
        let page = Swift.max(1, m.height - 4)
        let delta: Int?
        switch action {
        case .selectUp: delta = -times
        case .selectDown: delta = times
        case .pageUp: delta = -page
        case .pageDown: delta = page
        default: delta = nil
        }
        guard let delta else { m.helpShown = false; return m }
        let maxScroll = Swift.max(0, HelpScreen.lines(bindings: .defaults).count - (m.height - 3))
        m.helpScroll = Swift.min(maxScroll, Swift.max(0, m.helpScroll + delta))
        return m
    }

    static func nextTheme(_ model: MonitorModel) -> (MonitorModel, Effect?) {
        var m = model
        guard !m.themeNames.isEmpty else { return (m, nil) }
        let i = m.themeNames.firstIndex(of: m.themeName).map { ($0 + 1) % m.themeNames.count } ?? 0
        m.themeName = m.themeNames[i]
        m.statusMessage = "theme: \(m.themeName)"
        return (m, .loadTheme(m.themeName))
    }

    static func newTask(_ model: MonitorModel) -> (MonitorModel, Effect?) {
        var m = model
        guard let session = m.session(m.targetSessionID) else {
            m.statusMessage = "no session to add a task to; press N for a new session"
            return (m, nil)
        }
        if m.isDaemonSession(session.id) {
            m.statusMessage = "\(m.sessionLabel(session.id)) takes new tasks from the command line: "
                + "transfertop --background \(session.name) URL"
            return (m, nil)
        }
        guard session.state == .active else {
            m.statusMessage = "session \(session.id) is \(session.state.rawValue) and takes no new tasks; press N for a new session"
            return (m, nil)
        }
        m.prompt = Prompt(.newTaskURL(sessionID: session.id))
        return (m, nil)
    }
}
