import Foundation
import TransferModel

/// The panes that take the selection keys (Tab), in screen order. In the detail pane and the
/// event log the movement keys scroll.
public enum Pane: String, Sendable, Equatable, CaseIterable {
    case sessions, tasks, detail, events
}

/// A line of text the user is typing (filter, new task URL).
public struct Prompt: Sendable, Equatable {
    public enum Purpose: Sendable, Equatable {
        case filter
        case newTaskURL(sessionID: Int)
        case taskRateLimit(TaskID)
        case sessionRateLimit(sessionID: Int)
    }

    public var purpose: Purpose
    public var text: String

    public init(_ purpose: Purpose, text: String = "") {
        self.purpose = purpose
        self.text = text
    }
}

/// Everything the screen shows, as one value: the "model" of model-update-view.
///
/// The app layer feeds it snapshots, events, size and time; keys go through `reduce`/`handleKey`;
/// `ScreenRenderer.render` draws it. Nothing here reads a clock or the terminal.
public struct MonitorModel: Sendable {
    /// Set once per frame by `apply`; every assignment sums the tasks again (`totals`), so
    /// change it on a copy and assign once (see `holdCancelingWhileResumeDataIsMade`).
    public var sessions: [SessionSnapshot] = [] {
        didSet {
            totals = Dictionary(sessions.map { ($0.id, SessionTotals($0.tasks, superseded: superseded)) }, uniquingKeysWith: { a, _ in a })
            headerTotals = SessionTotals(summing: sessions.map { s in
                // A local monitor's header is this run's: a background session's finished
                // history (the daemon keeps it) is in the sessions pane, not in the totals.
                guard attachedSession == nil, isDaemonSession(s.id) else { return totals[s.id] ?? SessionTotals() }
                return SessionTotals(s.tasks.lazy.filter { $0.state != .completed }, superseded: superseded)
            })
        }
    }
    /// What the header sums: every session's totals, without the background sessions' ended
    /// tasks unless this monitor is attached to one.
    public private(set) var headerTotals = SessionTotals()
    /// The run was started with `-k`: the header says TLS is not verified from the first
    /// frame, before any hop has completed (DECISIONS 110).
    public var insecureConfiguration = false
    /// Per session, its tasks summed once per change of `sessions` (see `SessionTotals`).
    public private(set) var totals: [Int: SessionTotals] = [:]
    /// Per session that carries a segmented upload, each segment's state: drawn as
    /// the session row's map and in the detail pane of its tasks.
    public var segmentMaps: [Int: [SegmentScheduler.State]] = [:]
    /// The event log, oldest first, at most `maxEvents` long.
    public var events: [TransferEvent] = []
    public var maxEvents = 1000
    public var rates = TransferRates()
    public var selectedTask: TaskID?
    public var selectedSession: Int?
    public var focus: Pane = .tasks
    public var detailShown = false
    public var helpShown = false
    /// Help lines scrolled past, when the help is taller than the screen.
    public var helpScroll = 0
    /// Case-insensitive text matched against URL, description, state and session name.
    public var filter = ""
    /// The task table's order (`o`/F6).
    public var sort: TaskSort = .none
    /// Which columns the task table keeps when they do not all fit (`v`).
    public var columnSet: ColumnSet = .phases
    public var prompt: Prompt?
    /// A one-line message: why an action was refused, where a CSV went, a theme error.
    public var statusMessage: String?
    /// How long the previous frame took to build and flush, in ms (shown in the header).
    public var frameTimeMs: Double = 0
    public var themeName = "default"
    /// Themes the `t` key cycles through.
    public var themeNames = ["default", "light", "high-contrast", "monochrome"]
    public var utf8 = true
    /// No colour reaches the terminal (NO_COLOR, no colour support, the monochrome theme):
    /// glyphs then carry what colour would (waterfall phases get a letter each).
    public var monochrome = false
    /// The first `--slo` budget the run has breached so far, as the header names it (e.g.
    /// `OVER BUDGET ttfb.p95<100ms: 253ms`); nil while every budget holds.
    public var budgetBreach: String?
    /// `--debug`: the header also shows how long each frame took.
    public var debug = false
    /// Destructive keys ask first (`--yes` turns this off).
    public var confirmDestructive = true
    /// The question on the status line, with the effect `y` performs.
    public var confirmation: Confirmation?
    /// The status message as last seen by `expireStatusMessage`, and since when.
    var statusShown: (text: String?, since: Date) = (nil, Date(timeIntervalSince1970: 0))
    /// Animation frame counter, advanced by the app's timer.
    public var frame = 0
    public var now = Date(timeIntervalSince1970: 0)
    /// Seconds east of UTC for event-log times (the app passes the local offset).
    public var utcOffsetSeconds = 0
    public var width = 80
    public var height = 24
    /// The first task row shown; the renderer moves it to keep the selection visible.
    public var taskScroll = 0
    /// Event-log lines scrolled back from the newest (0 follows the log).
    public var eventScroll = 0
    /// Detail lines scrolled past (0 shows the top); back to 0 when another task is selected.
    public var detailScroll = 0
    /// Tasks whose resume data the app holds (after `d`), so `R` knows it can continue them.
    public var resumeDataAvailable: Set<TaskID> = []
    /// Tasks continued by another (`R`): their bytes are the continuation's, counted once.
    /// Set before `apply`, which sums the totals with it.
    public var superseded: Set<TaskID> = []
    /// URLs of the run's lists that no task has been made for yet (the runner starts a window
    /// of them at a time): the header's total counts them, and its ETA expects them.
    public var notStarted = 0
    /// When the monitor first saw each suspended task suspended (see `suspendedFor`).
    public private(set) var suspendedSince: [TaskID: Date] = [:]
    /// Tasks cancelled with `d` whose resume data has not arrived: nil until the task is seen
    /// completed, then when it was (see `holdCancelingWhileResumeDataIsMade`).
    public var awaitingResumeData: [TaskID: Date?] = [:]
    /// Background sessions whose daemon went away (stopped, killed, its host unreachable): the
    /// rows keep their last state and the sessions pane says "daemon gone" until it is back.
    public var goneDaemonSessions: Set<Int> = []
    /// `transfertop attach NAME`: the monitor watches this background session; `q` detaches.
    public var attachedSession: String?

    public init() {}

    /// Takes a new engine snapshot at `time` (seconds, monotonic): updates speeds and keeps
    /// the selection on a task and session that still exist.
    public mutating func apply(_ snapshots: [SessionSnapshot], at time: Double) {
        sessions = snapshots
        holdCancelingWhileResumeDataIsMade()
        rates.record(snapshots, at: time)
        noteSuspensions()
        normalizeSelection()
    }

    /// A suspension longer than this is marked: servers close idle connections after about a
    /// minute (nginx's send timeout is 60 s), and a resume may then find the connection gone.
    public static let longSuspension: TimeInterval = 60

    /// How long the monitor has seen the task suspended, nil when it is not.
    public func suspendedFor(_ id: TaskID) -> TimeInterval? {
        suspendedSince[id].map { Swift.max(0, now.timeIntervalSince($0)) }
    }

    /// Notes when each suspended task was first seen suspended (at `now`), and forgets tasks
    /// no longer suspended.
    private mutating func noteSuspensions() {
        var suspended = Set<TaskID>()
        for s in sessions {
            for t in s.tasks where t.state == .suspended {
                suspended.insert(t.id)
                if suspendedSince[t.id] == nil { suspendedSince[t.id] = now }
            }
        }
        if suspendedSince.count > suspended.count { suspendedSince = suspendedSince.filter { suspended.contains($0.key) } }
    }

    /// Appends events, dropping the oldest beyond `maxEvents`. Progress events are left out:
    /// they come several times a second per task and would bury the life-cycle callbacks.
    public mutating func append(_ newEvents: [TransferEvent]) {
        events += newEvents.filter { if case .progress = $0.kind { return false } else { return true } }
        if events.count > maxEvents { events.removeFirst(events.count - maxEvents) }
    }

    /// Selects the first visible task/session when the selection is gone or none was made.
    public mutating func normalizeSelection() {
        let list = TaskList(self)
        if selectedTask.map({ list.position(of: $0) == nil }) ?? true { selectedTask = list.first?.id }
        if !sessions.contains(where: { $0.id == selectedSession }) {
            selectedSession = selectedTask?.session ?? sessions.first?.id
        }
    }

    /// The session that `f`, `X` and `n` act on: the selected one in the sessions pane,
    /// otherwise the selected task's.
    public var targetSessionID: Int? {
        focus == .sessions ? selectedSession : (selectedTask?.session ?? selectedSession)
    }

    public func session(_ id: Int?) -> SessionSnapshot? {
        sessions.first { $0.id == id }
    }

    public var selectedTaskSnapshot: TaskSnapshot? {
        // Unfiltered: finding a task by id needs no filtering, and filtering costs a pass.
        selectedTask.flatMap { TaskList(sessions: sessions, filter: "").task(id: $0) }
    }
}
