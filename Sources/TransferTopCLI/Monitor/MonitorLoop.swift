import Foundation
import RunEvidence
import TransferKit
import TransferTopRun
import TransferTopUI

/// The UI loop: the only owner of the terminal. Everything it reads from the engine is a
/// snapshot or a drained event; everything it does to the engine goes through `perform`.
final class MonitorLoop {
    let runner: Runner
    let ring: EventRing
    let options: Options
    let environment: [String: String]
    let signals: SignalFlag
    let locator: ThemeLocator
    var model = MonitorModel()
    var bindings = KeyBindings.defaults
    let screen: CursesScreen
    let clock = ContinuousClock()
    let start: ContinuousClock.Instant
    /// When the quit began, or the last task stopped since: the grace counts from there.
    var quitting: ContinuousClock.Instant?
    /// How many tasks had stopped at `quitting`.
    var quitStopped = 0
    /// How long a quit waits with no task stopping: `q` waits longer, a signal as long as line
    /// mode does (`InterruptDeadline`), since `timeout` and systemd send SIGTERM only once.
    var quitGrace: Duration = .seconds(10)
    var dirty = true
    /// Frame and key timings for the benchmark (`TRANSFERTOP_FRAME_LOG`), usually nil.
    let frameLog: FrameLog?

    /// Background sessions of the daemon, when listed; of each host's daemon (`attach ssh://a
    /// ssh://b`), each feed with its own range of session ids.
    let daemons: [DaemonFeed]
    /// `--slo`: checked each frame against the finished tasks (the header turns red).
    let budgets: [Budget]

    init(runner: Runner, ring: EventRing, options: Options, environment: [String: String], signals: SignalFlag,
         daemons: [DaemonFeed] = [], attached: String? = nil) {
        self.runner = runner
        self.daemons = daemons
        // Checked when the option was read, so it parses here.
        budgets = (try? BudgetParser.parse(options.slo ?? "")) ?? []
        self.ring = ring
        self.options = options
        self.environment = environment
        self.signals = signals
        frameLog = FrameLog(environment: environment)
        start = clock.now
        locator = ThemeLocator(environment: environment, executablePath: Preflight.executablePath(),
                               currentDirectory: FileManager.default.currentDirectoryPath)
        screen = CursesScreen(environment: environment, inputIsTerminal: isatty(STDIN_FILENO) == 1)
        model.utf8 = Self.isUTF8(environment)
        model.debug = options.debug
        model.insecureConfiguration = runner.plan.sessions.contains(where: \.insecure)
        model.confirmDestructive = !options.yes
        model.utcOffsetSeconds = TimeZone.current.secondsFromGMT()
        model.themeNames = ThemeLoader.availableNames(locator: locator)
        model.attachedSession = attached
        if let attached { model.statusMessage = "attached to \(attached): q detaches, the daemon's tasks go on" }
        loadBindings()
        loadTheme(options.theme)
    }

    /// `OVER BUDGET ttfb.p95<100ms: 253ms` (the value, or why there is none).
    static func breachText(_ r: BudgetResult) -> String {
        let value = r.value.map { v -> String in
            if case .errors = r.budget.metric { return String(format: "%.1f%%", v) }
            return EvidenceFormat.duration(v)
        } ?? r.note ?? ""
        return TerminalText.safe("OVER BUDGET \(r.budget): \(value)")
    }

    /// Runs until `q` (or a signal) and every task has stopped; returns the exit status.
    func run() -> Int32 {
        defer { screen.end() }
        let frame = Duration.milliseconds(1000 / max(1, options.fps))
        var nextFrame = clock.now
        while true {
            if signals.raised.exchange(0, ordering: .relaxed) != 0 {
                beginQuit("interrupted")
                quitGrace = .seconds(InterruptDeadline.grace)
            }
            if quitting != nil, runner.finishedCount != quitStopped {
                quitStopped = runner.finishedCount
                quitting = clock.now
            }
            if let q = quitting, runner.isFinished || clock.now - q > quitGrace { break }
            let wait = max(Duration.zero, nextFrame - clock.now)
            let ms = Int32(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
            let input = screen.read(milliseconds: max(1, ms))
            if case .none = input {} else {
                handle(input)
                // A key's effect is drawn at once, as htop and btop do, not at the next tick:
                // what else was typed meanwhile (a held key, a paste, the wheel) first, then
                // one frame, and the frame clock starts again from it.
                var more = screen.read(milliseconds: 0)
                while more != .none {
                    handle(more)
                    more = screen.read(milliseconds: 0)
                }
                draw()
                nextFrame = clock.now + frame
                continue
            }
            if clock.now >= nextFrame {
                draw()
                nextFrame = clock.now + frame
            }
        }
        draw()
        return runner.exitStatus()
    }

    func handle(_ input: CursesScreen.Input) {
        switch input {
        case .none: return
        case .resize:
            screen.invalidate()
        case .key(let key):
            frameLog?.keyRead(at: clock.now)
            if quitting != nil { return }
            let (m, effect) = Reducer.handleKey(model, key, bindings: bindings)
            model = m
            if let effect { perform(effect) }
        case .mouse(let event):
            if quitting != nil { return }
            model = Reducer.handleMouse(model, event).0
        }
    }

    /// One frame: take a snapshot and the new events, lay out, flush the difference.
    func draw() {
        let began = clock.now
        let (w, h) = screen.size
        model.width = w
        model.height = h
        model.now = Date()
        model.frame += 1
        model.resumeDataAvailable = runner.resumeDataTaskIDs  // before apply: it ends "canceling"
        model.superseded = runner.supersededTaskIDs  // before apply: the totals leave them out
        model.notStarted = runner.notStartedCount
        // The daemon's rows after the run's own: its latest picture, never a round trip here.
        let background = daemons.flatMap { $0.snapshots(now: model.now) }
        model.goneDaemonSessions = Set(daemons.filter(\.isGone).flatMap(\.sessionIDs))
        model.apply(runner.snapshots() + background, at: seconds(clock.now - start))
        if let notice = daemons.compactMap({ $0.takeNotices().last }).last { model.statusMessage = notice }
        model.segmentMaps = runner.segmentMaps()
        model.append(ring.drain() + daemons.flatMap { $0.takeEvents() })
        if let notice = runner.takeNotices().last { model.statusMessage = notice }
        model.expireStatusMessage()
        if !budgets.isEmpty, let stats = runner.statistics {
            // The finished tasks so far against `--slo`: the header names the first breach.
            model.budgetBreach = Budget.check(budgets, stats).first(where: \.breached).map(Self.breachText)
        }
        let grid = ScreenRenderer.render(model, bindings: bindings)
        screen.flush(grid)
        let ended = clock.now
        model.frameTimeMs = seconds(ended - began) * 1000
        frameLog?.frameDrawn(began: began, ended: ended, tasks: model.sessions.reduce(0) { $0 + $1.tasks.count })
    }

    func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// `q`, Ctrl-C, SIGTERM: cancel with resume data, wait (drawing) until everything stopped.
    func beginQuit(_ why: String) {
        guard quitting == nil else { return }
        quitting = clock.now
        quitStopped = runner.finishedCount
        // Background sessions are the daemon's: quitting only detaches from them.
        let detach = model.sessions.contains { model.isDaemonSession($0.id) } ? " (background tasks go on in the daemon)" : ""
        model.statusMessage = model.attachedSession != nil && runner.taskSnapshots().isEmpty
            ? "\(why): detaching; the daemon's tasks go on"
            : "\(why): cancelling running downloads, keeping resume data…" + detach
        runner.interrupt()
    }

    static func isUTF8(_ env: [String: String]) -> Bool {
        let value = env["LC_ALL"].flatMap { $0.isEmpty ? nil : $0 } ?? env["LC_CTYPE"].flatMap { $0.isEmpty ? nil : $0 } ?? env["LANG"] ?? ""
        let v = value.lowercased()
        return v.contains("utf-8") || v.contains("utf8")
    }
}
