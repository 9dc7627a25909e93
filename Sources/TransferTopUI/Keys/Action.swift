/// Every user action, named as in key-binding files.
public enum Action: String, Sendable, Equatable, Hashable, CaseIterable {
    case selectUp = "select-up"
    case selectDown = "select-down"
    case pageUp = "page-up"
    case pageDown = "page-down"
    case selectFirst = "select-first"
    case selectLast = "select-last"
    case nextPane = "next-pane"
    case previousPane = "previous-pane"
    case toggleDetail = "toggle-detail"
    case suspend
    case resume
    case cancel
    case cancelWithResumeData = "cancel-with-resume-data"
    case resumeFromResumeData = "resume-from-resume-data"
    case retry
    case limitTask = "limit-task"
    case limitSession = "limit-session"
    case moreConnections = "more-connections"
    case fewerConnections = "fewer-connections"
    case finishAndInvalidate = "finish-and-invalidate"
    case invalidateAndCancel = "invalidate-and-cancel"
    case newTask = "new-task"
    case newSession = "new-session"
    case exportCSV = "export-csv"
    case nextTheme = "next-theme"
    case filter
    case sort
    case columns
    case help
    case quit
}

/// One row of the action table: the single source of default keys and help text.
public struct ActionInfo: Sendable, Equatable {
    public var action: Action
    public var defaultKeys: [Key]
    public var help: String
    /// Help screen section.
    public var group: String
    /// The footer's one-word label; nil keeps the action out of the footer.
    public var hint: String?

    init(action: Action, defaultKeys: [Key], help: String, group: String, hint: String? = nil) {
        self.action = action
        self.defaultKeys = defaultKeys
        self.help = help
        self.group = group
        self.hint = hint
    }
}

/// The action table. The help screen, the footer and the default bindings all come from here.
public enum ActionTable {
    public static let entries: [ActionInfo] = [
        ActionInfo(action: .selectUp, defaultKeys: [.up, .char("k")], help: "select the previous row (detail, log: scroll)", group: "Navigate"),
        ActionInfo(action: .selectDown, defaultKeys: [.down, .char("j")], help: "select the next row (detail, log: scroll)", group: "Navigate"),
        ActionInfo(action: .pageUp, defaultKeys: [.pageUp], help: "move up one page", group: "Navigate"),
        ActionInfo(action: .pageDown, defaultKeys: [.pageDown], help: "move down one page", group: "Navigate"),
        ActionInfo(action: .selectFirst, defaultKeys: [.home, .char("g")], help: "select the first row", group: "Navigate"),
        ActionInfo(action: .selectLast, defaultKeys: [.end, .char("G")], help: "select the last row", group: "Navigate"),
        ActionInfo(action: .nextPane, defaultKeys: [.tab], help: "switch pane: sessions, tasks, detail, event log", group: "Navigate"),
        ActionInfo(action: .previousPane, defaultKeys: [.backTab], help: "switch pane the other way (shift-tab)", group: "Navigate"),
        ActionInfo(action: .toggleDetail, defaultKeys: [.enter], help: "show or hide the selected task's detail", group: "Navigate", hint: "detail"),
        ActionInfo(action: .sort, defaultKeys: [.char("o"), .function(6)], help: "sort tasks: state, progress, speed, TTFB, name, none", group: "Navigate", hint: "sort"),
        ActionInfo(action: .columns, defaultKeys: [.char("v")], help: "columns that do not all fit: phases, sizes and ETA, file names", group: "Navigate"),
        ActionInfo(action: .filter, defaultKeys: [.char("/"), .function(3)], help: "filter tasks by URL, state, ID, status or session", group: "Navigate", hint: "filter"),
        ActionInfo(action: .suspend, defaultKeys: [.char("s")], help: "suspend the selected task", group: "Tasks", hint: "suspend"),
        ActionInfo(action: .resume, defaultKeys: [.char("r")], help: "resume the selected task", group: "Tasks", hint: "resume"),
        ActionInfo(action: .cancel, defaultKeys: [.char("c"), .function(9)], help: "cancel the selected task", group: "Tasks", hint: "cancel"),
        ActionInfo(action: .cancelWithResumeData, defaultKeys: [.char("d")], help: "cancel a download, keeping resume data", group: "Tasks", hint: "stop+keep"),
        ActionInfo(action: .resumeFromResumeData, defaultKeys: [.char("R")], help: "continue from resume data (as a new task)", group: "Tasks", hint: "continue"),
        ActionInfo(action: .retry, defaultKeys: [.char("a")], help: "retry a failed or cancelled task", group: "Tasks"),
        ActionInfo(action: .limitTask, defaultKeys: [.char("l")], help: "limit the task's bandwidth (500K, 2M, 0)", group: "Tasks"),
        ActionInfo(action: .newTask, defaultKeys: [.char("n")], help: "add a task to the session (asks for a URL)", group: "Tasks", hint: "new"),
        ActionInfo(action: .finishAndInvalidate, defaultKeys: [.char("f")], help: "finish the session's tasks, then invalidate", group: "Sessions", hint: "finish"),
        ActionInfo(action: .invalidateAndCancel, defaultKeys: [.char("X")], help: "cancel the session's tasks and invalidate it", group: "Sessions", hint: "kill"),
        ActionInfo(action: .newSession, defaultKeys: [.char("N")], help: "create a new session", group: "Sessions"),
        ActionInfo(action: .limitSession, defaultKeys: [.char("L")], help: "limit the session's shared bandwidth", group: "Sessions"),
        ActionInfo(action: .moreConnections, defaultKeys: [.char("+")], help: "one more connection per host (session)", group: "Sessions"),
        ActionInfo(action: .fewerConnections, defaultKeys: [.char("-")], help: "one connection per host fewer (at least 1)", group: "Sessions"),
        ActionInfo(action: .exportCSV, defaultKeys: [.char("e")], help: "export per-transaction metrics as CSV", group: "Monitor", hint: "csv"),
        ActionInfo(action: .nextTheme, defaultKeys: [.char("t")], help: "switch to the next colour theme", group: "Monitor", hint: "theme"),
        ActionInfo(action: .help, defaultKeys: [.char("?"), .function(1)], help: "show or hide this help", group: "Monitor", hint: "help"),
        ActionInfo(action: .quit, defaultKeys: [.char("q"), .function(10)], help: "quit (downloads keep resume data)", group: "Monitor", hint: "quit"),
    ]

    public static func info(_ action: Action) -> ActionInfo {
        entries.first { $0.action == action }!
    }
}
