import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit
import TransferTopRun

/// `control NAME retry TASK`, `limit [TASK] RATE` and `connections N`: the monitor's `a`, `l`,
/// `L`, `+` and `-` for a background session (DECISIONS 178). Limits are journaled first and
/// then applied (DECISIONS 211): a session's to its later submissions too, and everything to
/// what a restarted daemon runs again.
extension BackgroundHost {
    func change(_ name: String, task number: Int64?, _ change: BackgroundChange) throws -> String {
        switch change {
        case .retry:
            try checkLive(name)
            guard let number else { throw DaemonError("retry acts on one task; give its number") }
            return try retry(name, number)
        case .rateLimit(let rate):
            let shown = rate > 0 ? "\(rate) bytes/s" : "none"
            if let number {
                var waiting = false
                try keep(name) {
                    // A task the daemon has not started yet keeps the rate for its start
                    // (`applyTaskLimit`), as a session keeps its own for its next tasks.
                    waiting = try unfinishedTask(name, number) == nil
                    try journal.setRateLimit(session: name, task: number, rate)
                    return { [self] in
                        state.withLock { $0.limits[name, default: JournalLimits()].taskRates[number] = rate }
                        // Looked up again under `applying`: a task that started meanwhile took
                        // its kept rate already, or takes this one now.
                        liveEngineTask(name, number)?.rateLimit = rate
                        return 1
                    }
                }
                return "limit \(name):\(number): \(shown)" + (waiting ? " (it has not started: kept for its start)" : "")
            }
            let running = try keep(name) {
                try journal.setRateLimit(session: name, task: nil, rate)
                return { [self] in
                    state.withLock { $0.limits[name, default: JournalLimits()].sessionRate = rate }
                    return distributeSessionLimits(name)
                }
            }
            let divided = running > 1 && rate > 0 ? ", divided among its \(running) running submissions" : ""
            return "limit \(name): \(shown)\(idle(name) ? Self.keptForLater : divided)"
        case .connectionsPerHost(let n):
            guard number == nil else { throw DaemonError("connections is for the whole session; give no task") }
            guard OptionBounds.connectionsPerHost.contains(n) else {
                throw DaemonError("connections per host is \(OptionBounds.connectionsPerHost.lowerBound)-\(OptionBounds.connectionsPerHost.upperBound), not \(n)")
            }
            let running = try keep(name) {
                try journal.setConnectionsPerHost(session: name, n)
                return { [self] in
                    state.withLock { $0.limits[name, default: JournalLimits()].connectionsPerHost = n }
                    return distributeSessionLimits(name)
                }
            }
            let each = running > 1 ? " in each of its \(running) running submissions" : ""
            return "connections \(name): \(n) per host\(idle(name) ? Self.keptForLater : each)"
        }
    }

    /// One change at a time, the session checked live again inside (an invalidation takes
    /// `changing` too, so no limit is written back after it dropped them): `journal` writes,
    /// then the step it returns changes memory and engine under `applying`, the short lock a
    /// starting submission or task takes. So the journal, memory and engine end with the same,
    /// last, value, and no transfer waits for a journal write.
    @discardableResult
    private func keep(_ name: String, _ journal: () throws -> () -> Int) throws -> Int {
        let running = try changing.withLock { _ in
            try checkLive(name)
            let apply = try journal()
            return applying.withLock { _ in apply() }
        }
        bell.ring()
        return running
    }

    private func checkLive(_ name: String) throws {
        guard try journal.sessions().contains(where: { $0.name == name && !$0.invalidated }) else {
            throw DaemonError("no live background session named '\(SafeQuote.quote(name))'")
        }
    }

    static let keptForLater = " (no task is running: kept for the session's next tasks)"

    /// No unfinished task by the journal (what `wait` reads); false when it cannot say.
    private func idle(_ name: String) -> Bool {
        (try? journal.sessionsWithUnfinishedTasks().contains(name)) == false
    }

    /// The engine sessions of the session's submissions that have not ended.
    func runningEngineSessions(_ name: String) -> [TransferSession] {
        state.withLock { $0.running.values.filter { $0.session == name && !$0.ended.withLock { $0 } } }.flatMap { $0.runner.sessions }
    }

    /// Gives the session's kept limits to the engine sessions of its running submissions
    /// (`distributeSessionLimits`); run when a submission starts or ends, so the rate's parts
    /// always add up to the session's rate. Returns how many engine sessions there are.
    @discardableResult
    func applySessionLimits(_ name: String) -> Int {
        applying.withLock { _ in distributeSessionLimits(name) }
    }

    /// The rate divided among the engine sessions evenly (each engine shares its part among
    /// its transfers, so the session as a whole stays within it), the connections per host to
    /// each. Only with `applying` held: two appliers (a submission ending, a `control`) must
    /// not leave the older division last.
    private func distributeSessionLimits(_ name: String) -> Int {
        let sessions = runningEngineSessions(name)
        guard let kept = state.withLock({ $0.limits[name] }) else { return sessions.count }
        if let rate = kept.sessionRate {
            let part = rate > 0 ? Swift.max(1, rate / Int64(Swift.max(1, sessions.count))) : 0
            for s in sessions { s.rateLimit = part }
        }
        if let n = kept.connectionsPerHost { for s in sessions { s.maximumConnectionsPerHost = n } }
        return sessions.count
    }

    /// A task's kept rate, given to its engine task when it first reports (after a restart or
    /// a retry, the task is a new engine task under the same number). Under `applying`, as a
    /// change is, so a change made meanwhile is not overwritten with the older rate.
    func applyTaskLimit(_ task: TransferTask, session: String, number: Int64) {
        applying.withLock { _ in
            if let rate = state.withLock({ $0.limits[session]?.taskRates[number] }) { task.rateLimit = rate }
        }
    }

    /// The engine task of a task that has not ended; nil when the daemon has not started it
    /// yet. One that has ended is refused.
    private func unfinishedTask(_ name: String, _ number: Int64) throws -> TransferTask? {
        guard let t = try journal.task(session: name, number: number) else { throw DaemonError("no task \(name):\(number)") }
        if let task = liveEngineTask(name, number) { return task }
        guard t.state != .completed else {
            throw DaemonError("task \(name):\(number) has ended; a limit is for a task that runs or has not started")
        }
        return nil
    }

    /// The engine task running under `number`, nil when none is.
    private func liveEngineTask(_ name: String, _ number: Int64) -> TransferTask? {
        guard let (hosted, tid) = state.withLock({ $0.live[TaskKey(session: name, number: number)] }),
              let task = hosted.runner.task(tid), task.state != .completed else { return nil }
        return task
    }

    /// A task that ended without success runs again under its number, planned from its
    /// submission as a restored one is: a download with a partial file continues it.
    private func retry(_ name: String, _ number: Int64) throws -> String {
        guard let t = try journal.task(session: name, number: number) else { throw DaemonError("no task \(name):\(number)") }
        guard t.state == .completed else { throw DaemonError("task \(name):\(number) has not ended (\(t.state.rawValue)); retry is for a failed or cancelled task") }
        guard !Self.status(t).succeeded else { throw DaemonError("task \(name):\(number) completed; there is nothing to retry") }
        let key = TaskKey(session: name, number: number)
        // Checked again where it is moved: two retries at once (two monitors, or a monitor and
        // `control`) must not both start a task under one number.
        let moved = try writer.sync { () throws -> Bool in
            guard let now = try journal.task(session: name, number: number), now.state == .completed else { return false }
            try move(now, to: .queued)
            return true
        }
        guard moved else { throw DaemonError("task \(name):\(number) is already being retried") }
        // The number's new task takes the keys from the old one (`engineEvent` sets it).
        state.withLock { _ = $0.live.removeValue(forKey: key) }
        let started = try restart([t])
        flush()
        return started > 0 ? "retry \(name):\(number): started again" : "retry \(name):\(number): could not start (see status)"
    }
}
