import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit

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
            let sessions = try runningSessions(name)
            for s in sessions { s.rateLimit = rate }
            return "limit \(name): \(shown), shared by its running tasks"
        case .connectionsPerHost(let n):
            guard number == nil else { throw DaemonError("connections is for the whole session; give no task") }
            let sessions = try runningSessions(name)
            for s in sessions { s.maximumConnectionsPerHost = n }
            return "connections \(name): \(n) per host"
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
        // The number's new task takes the keys from the old one (`engineEvent` sets it).
        state.withLock { _ = $0.live.removeValue(forKey: key) }
        try writer.sync { try move(t, to: .queued) }
        let started = try restart([t])
        flush()
        return started > 0 ? "retry \(name):\(number): started again" : "retry \(name):\(number): could not start (see status)"
    }
}
