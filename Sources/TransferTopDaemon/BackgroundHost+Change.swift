import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit
import TransferTopRun

/// `control NAME retry TASK`, `limit [TASK] RATE` and `connections N`: the monitor's `a`, `l`,
/// `L`, `+` and `-` for a background session (DECISIONS 178). Limits live with the session's
/// runners and are not journaled: a restarted daemon runs without them.
extension BackgroundHost {
    func change(_ name: String, task number: Int64?, _ change: BackgroundChange) throws -> String {
        guard try journal.sessions().contains(where: { $0.name == name && !$0.invalidated }) else {
            throw DaemonError("no live background session named '\(SafeQuote.quote(name))'")
        }
        switch change {
        case .retry:
            guard let number else { throw DaemonError("retry acts on one task; give its number") }
            return try retry(name, number)
        case .rateLimit(let rate):
            let shown = rate > 0 ? "\(rate) bytes/s" : "none"
            if let number {
                let task = try liveTask(name, number)
                task.rateLimit = rate
                return "limit \(name):\(number): \(shown)"
            }
            // Each submission runs in an engine of its own: the limit is divided among them
            // evenly (each engine shares its part among its transfers), so the session as a
            // whole stays within it.
            let sessions = try runningSessions(name)
            let part = rate > 0 ? Swift.max(1, rate / Int64(sessions.count)) : 0
            for s in sessions { s.rateLimit = part }
            let divided = sessions.count > 1 && rate > 0 ? ", divided among its \(sessions.count) running submissions" : ""
            return "limit \(name): \(shown)\(divided)"
        case .connectionsPerHost(let n):
            guard number == nil else { throw DaemonError("connections is for the whole session; give no task") }
            guard OptionBounds.connectionsPerHost.contains(n) else {
                throw DaemonError("connections per host is \(OptionBounds.connectionsPerHost.lowerBound)-\(OptionBounds.connectionsPerHost.upperBound), not \(n)")
            }
            let sessions = try runningSessions(name)
            for s in sessions { s.maximumConnectionsPerHost = n }
            let each = sessions.count > 1 ? " in each of its \(sessions.count) running submissions" : ""
            return "connections \(name): \(n) per host\(each)"
        }
    }

    /// The engine sessions of the session's runners; none running is an error (a limit would
    /// change nothing).
    private func runningSessions(_ name: String) throws -> [TransferSession] {
        let sessions = state.withLock { $0.running.values.filter { $0.session == name } }.flatMap { $0.runner.sessions }
        guard !sessions.isEmpty else { throw DaemonError("session \(name) has no running tasks") }
        return sessions
    }

    private func liveTask(_ name: String, _ number: Int64) throws -> TransferTask {
        let key = TaskKey(session: name, number: number)
        guard let t = try journal.task(session: name, number: number) else { throw DaemonError("no task \(name):\(number)") }
        guard let (hosted, tid) = state.withLock({ $0.live[key] }), let task = hosted.runner.task(tid), task.state != .completed else {
            throw DaemonError("task \(name):\(number) is not running (\(t.state.rawValue))")
        }
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
