import Foundation
import RunEvidence
import TransferKit
import TransferTopRun
import TransferTopUI

extension MonitorLoop {
    /// Performs what a key asked for on TransferKit and says what happened in the status line.
    func perform(_ effect: Effect) {
        // Keys on the daemon's rows go to the daemon, off this thread (DECISIONS 128).
        if let text = daemons.lazy.compactMap({ $0.route(effect) }).first {
            model.statusMessage = text
            return
        }
        switch effect {
        case .suspend(let id): withTask(id) { $0.suspend() }
        case .resume(let id): withTask(id) { $0.resume() }
        case .cancel(let id): withTask(id) { $0.cancel() }
        case .cancelWithResumeData(let id):
            withTask(id) { runner.cancelKeepingResumeData($0) }
            model.statusMessage = "task \(id): cancelling, keeping resume data (R continues it)"
        case .resumeFromResumeData(let id):
            model.statusMessage = runner.resumeFromResumeData(id) ?? "task \(id): continuing from resume data as a new task"
        case .finishAndInvalidate(let sid):
            withSession(sid) { $0.finishTasksAndInvalidate() }
            model.statusMessage = model.session(sid).map(Reducer.finishingMessage) ?? "session \(sid): finishing its tasks, then invalidating"
        case .invalidateAndCancel(let sid):
            withSession(sid) { session in
                let wasInvalidating = session.state == .invalidating
                session.invalidateAndCancel()
                // TransferKit ignores invalidateAndCancel() once finishTasksAndInvalidate() has
                // begun; X after f still means "stop them now", so cancel what is left.
                if wasInvalidating { for t in session.allTasks where t.state != .completed { t.cancel() } }
            }
            model.statusMessage = "session \(sid): cancelling its tasks and invalidating"
        case .newTask(let url, let sid): newTask(url, sid)
        case .newSession: newSession()
        case .exportCSV: exportCSV()
        case .loadTheme(let name): loadTheme(name)
        case .quit: beginQuit("quit")
        case .retry(let id):
            model.statusMessage = runner.retry(id) ?? "task \(id): trying again"
        case .limitTask(let id, let rate): withTask(id) { $0.rateLimit = rate }
        case .limitSession(let sid, let rate): withSession(sid) { $0.rateLimit = rate }
        case .connectionsPerHost(let sid, let n): withSession(sid) { $0.maximumConnectionsPerHost = n }
        }
    }

    func withTask(_ id: TaskID, _ body: (TransferTask) -> Void) {
        guard let task = runner.task(id) else { model.statusMessage = "task \(id) is not known to this run"; return }
        body(task)
    }

    func withSession(_ id: Int, _ body: (TransferSession) -> Void) {
        guard let s = runner.sessions.first(where: { $0.sessionID == id }) else { model.statusMessage = "no session \(id)"; return }
        body(s)
    }

    func newTask(_ text: String, _ sid: Int) {
        let trimmed = URLCheck.withDefaultScheme(text)
        let url: URL
        do { url = try URLCheck.checkURL(trimmed) } catch {
            model.statusMessage = error.reason
            return
        }
        withSession(sid) { session in
            let task = runner.addTask(TaskPlan(kind: .download, url: url), to: session)
            // The new task is selected so it is on screen (unless the filter hides it).
            let id = TaskID(session: sid, task: task.taskIdentifier)
            model.selectedTask = id
            model.statusMessage = "task \(id) added" + (model.filter.isEmpty ? "" : " (clear the filter with esc if it is not shown)")
        }
    }

    func newSession() {
        var plan = runner.plan.sessions.first ?? SessionPlan(name: "session")
        plan.tasks = []
        plan.name = "session-\(runner.sessions.count + 1)"
        let s = runner.makeSession(plan)
        // The sessions pane takes the focus, on the new session: `n` then adds to it, as the
        // message says, not to the selected task's session.
        model.selectedSession = s.sessionID
        model.focus = .sessions
        model.statusMessage = "session \(s.sessionID) (\(plan.name)) created; press n to add a task to it"
    }

    /// `e`: the CSV goes next to the downloads, with a time-stamped name shown in the status
    /// line, and beside it the per-host percentile table of the finished tasks (`.txt`, the
    /// table of line mode's `--summary hosts`; DECISIONS 190).
    func exportCSV() {
        // The daemon's tasks are not this run's (they have no metrics here): `status --json` has them.
        if runner.taskSnapshots().isEmpty, model.sessions.contains(where: { model.isDaemonSession($0.id) }) {
            model.statusMessage = "e exports this run's own tasks and it has none; the daemon's: transfertop status --json"
            return
        }
        let f = DateFormatter()
        f.dateFormat = "yyyyMMdd-HHmmss"
        let stem = runner.plan.outputDirectory + "/transfertop-\(f.string(from: Date()))"
        let tasks = runner.taskSnapshots()
        let finished = tasks.filter { $0.state == .completed }
        let table = EvidenceFormat.table(RunStatistics(finished.flatMap(HopSample.samples)))
            .map { TerminalText.safe($0) }.joined(separator: "\n") + "\n"
        let errors = Exports.write(TransactionCSV.csv(tasks), to: stem + ".csv") + Exports.write(table, to: stem + ".txt")
        model.statusMessage = errors.first ?? "CSV written to \(stem).csv, percentiles per host to \(stem).txt"
    }

    func loadTheme(_ name: String) {
        let result = ThemeLoader.load(name, locator: locator)
        screen.apply(result.theme.resolved(depth: screen.depth))
        model.themeName = result.warning == nil ? name : "default"
        // Without colour only glyphs tell the phases apart (NO_COLOR, TERM=dumb-ish, monochrome).
        model.monochrome = screen.depth == .none || model.themeName == "monochrome"
        if let w = result.warning { model.statusMessage = w }
    }

    /// Key bindings from `$XDG_CONFIG_HOME/transfertop/keys.toml`, if present.
    func loadBindings() {
        do {
            guard let (path, text) = try Preflight.keyBindingsText(environment: environment) else { return }
            bindings = try KeyBindingParser.parse(text, file: path)
        } catch {
            model.statusMessage = "\(error) — using the default keys"
        }
    }
}
