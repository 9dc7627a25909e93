import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit

extension BackgroundHost {
    // MARK: status

    func status(_ name: String?) throws -> [BackgroundSessionStatus] {
        flush()
        progress.flush()
        let sessions = try journal.sessions().filter { name == nil || $0.name == name }
        if let name, sessions.isEmpty { throw DaemonError("no background session named '\(SafeQuote.quote(name))'") }
        let tasks = Dictionary(grouping: try journal.tasks(session: name), by: \.session)
        return sessions.map { s in
            sessionStatus(s, tasks: (tasks[s.name] ?? []).map(Self.status))
        }
    }

    /// A session's status with its limits: those kept for it, the connections per host of its
    /// running submissions when none were set.
    func sessionStatus(_ s: JournalSession, tasks: [BackgroundTaskStatus]) -> BackgroundSessionStatus {
        let kept = state.withLock { $0.limits[s.name] }
        let running = kept?.connectionsPerHost == nil ? runningEngineSessions(s.name).first?.maximumConnectionsPerHost : nil
        return BackgroundSessionStatus(name: s.name, invalidated: s.invalidated, tasks: tasks,
                                       rateLimit: kept?.sessionRate, connectionsPerHost: kept?.connectionsPerHost ?? running,
                                       connectionsKept: kept?.connectionsPerHost != nil)
    }

    static func status(_ t: JournalTask) -> BackgroundTaskStatus {
        BackgroundTaskStatus(number: t.number, url: Redaction.redactURL(t.url), state: t.state.rawValue, statusCode: t.statusCode,
                             error: t.error, path: t.path, bytesReceived: t.bytesReceived, bytesExpected: t.bytesExpected,
                             keptResumeData: t.resumeData != nil)
    }

    // MARK: follow

    /// Sends the session's journaled events after `after`, then each new one, until the client
    /// goes away or, with `untilDone`, every task is completed (then `.done`).
    func follow(_ name: String, after: Int64, untilDone: Bool, on channel: LineChannel) throws {
        guard try journal.sessions().contains(where: { $0.name == name }) else {
            try channel.send(DaemonReply.failure("no background session named '\(SafeQuote.quote(name))'"))
            return
        }
        var cursor = after
        let me = UUID()
        state.withLock { $0.followers[me] = (name, after) }
        defer { unfollow(me, name) }
        while true {
            let seen = bell.count
            var passed: [(task: Int64, seq: Int64)] = []
            for e in try journal.events(session: name, after: cursor) {
                var event = (try? JSONDecoder().decode(BackgroundEvent.self, from: e.payload))
                    ?? BackgroundEvent(seq: 0, session: name, kind: e.kind, task: nil, note: nil)
                event.seq = e.seq
                try channel.send(DaemonReply.event(event))
                cursor = e.seq
                state.withLock { $0.followers.inPlace(me) { $0.cursor = cursor } }
                if e.kind == "state", event.task?.state == JournalTaskState.completed.rawValue, let task = e.task {
                    passed.append((task, e.seq))
                }
            }
            // Completions read: their tasks' earlier events kept for this follower go, as far
            // as the others have read too (the last one past them takes them all).
            _ = try? journal.pruneEvents(session: name, kind: "state", supersededBy: passed, through: { followerFloor(name) })
            // Done only when nothing runs for the session and the journal has every write.
            if untilDone, !hasRunner(name) {
                flush()
                if try journal.events(session: name, after: cursor).isEmpty {
                    let tasks = try journal.tasks(session: name)
                    if tasks.allSatisfy({ $0.state == .completed }) {
                        let failed = tasks.filter { !Self.status($0).succeeded }.count
                        try channel.send(DaemonReply.done(total: tasks.count, failed: failed))
                        return
                    }
                    // Suspended ones wait for a resume: sleep until something happens.
                } else {
                    continue  // events written meanwhile: send them first
                }
            }
            bell.wait(after: seen, until: Date().addingTimeInterval(5))
            if !channel.isOpen { return }
        }
    }

    /// A follower leaves: what completions kept for it (it had not read past them) goes, up
    /// to the least advanced follower still there (all of it when none is).
    func unfollow(_ me: UUID, _ name: String) {
        _ = state.withLock { $0.followers.removeValue(forKey: me) }
        _ = try? journal.pruneSupersededEvents(session: name, kind: "state", through: { followerFloor(name) })
    }

    /// The session's tasks no runner has started: held by `suspend` (journaled suspended),
    /// fed again by `resume` (queued), dropped by a cancel (completed, cancelled). Returns
    /// their numbers and how many changed.
    func controlUnfed(_ name: String, _ action: BackgroundAction) throws -> (Set<Int64>, Int) {
        let hosted = state.withLock { $0.running.values.filter { $0.session == name } }
        var all: Set<Int64> = [], changed = 0
        for h in hosted {
            let urls: [String]
            switch action {
            case .suspend: urls = h.runner.holdFeeding()
            case .resume: urls = h.runner.releaseFeeding()
            case .cancel, .cancelWithResumeData: urls = h.runner.dropUnfed()
            case .invalidate: urls = []
            }
            let numbers = urls.compactMap { h.numbers[$0] }
            all.formUnion(numbers)
            writer.sync {
                for n in numbers {
                    guard let t = try? journal.task(session: name, number: n), t.state != .completed else { continue }
                    switch action {
                    case .suspend where t.state == .queued: try? move(t, to: .suspended)
                    case .resume where t.state == .suspended: try? move(t, to: .queued)
                    case .cancel, .cancelWithResumeData:
                        guard h.completed.withLock({ $0.insert(n).inserted }) else { continue }
                        try? finish(t, error: "cancelled before it started")
                    default: continue
                    }
                    changed += 1
                }
            }
        }
        if changed > 0 { bell.ring() }
        return (all, changed)
    }

    func hasRunner(_ name: String) -> Bool { state.withLock { $0.running.values.contains { $0.session == name } } }

    // MARK: keys

    func control(_ name: String, task number: Int64?, action: BackgroundAction) throws -> String {
        guard try journal.sessions().contains(where: { $0.name == name && !$0.invalidated }) else {
            throw DaemonError("no live background session named '\(SafeQuote.quote(name))'")
        }
        if action == .invalidate {
            let hosted = state.withLock { $0.running.values.filter { $0.session == name } }
            for h in hosted { h.runner.interrupt() }
            flush()
            // Tasks no runner holds (suspended when a daemon stopped) end here; the runners'
            // own end as their runners finish.
            let held = Set(hosted.flatMap { $0.numbers.values })
            for t in try journal.tasks(session: name) where t.state != .completed && !held.contains(t.number) {
                try finish(t, error: "cancelled (session invalidated)")
            }
            // Under `changing`: a limit being kept meanwhile is written before, and dropped.
            try changing.withLock { _ in
                try journal.invalidateSession(name)
                applying.withLock { _ in _ = state.withLock { $0.limits.removeValue(forKey: name) } }
            }
            let event = BackgroundEvent(seq: 0, session: name, kind: "invalidated", task: nil, note: nil)
            try journal.appendEvent(session: name, task: nil, kind: "invalidated", payload: try JSONEncoder().encode(event))
            bell.ring()
            return "session \(name) invalidated"
        }
        // The whole session: tasks its runners have not started yet (behind the window) are
        // held, released or dropped there, and journaled so (DECISIONS 134).
        var unfed: Set<Int64> = []
        var done = 0
        if number == nil {
            (unfed, done) = try controlUnfed(name, action)
        }
        let keys: [TaskKey]
        if let number {
            guard try journal.task(session: name, number: number) != nil else { throw DaemonError("no task \(name):\(number)") }
            keys = [TaskKey(session: name, number: number)]
        } else {
            keys = try journal.tasks(session: name).filter { $0.state != .completed && !unfed.contains($0.number) }
                .map { TaskKey(session: name, number: $0.number) }
        }
        for key in keys {
            if let (hosted, tid) = state.withLock({ $0.live[key] }), let task = hosted.runner.task(tid), task.state != .completed {
                switch action {
                case .suspend: task.suspend()
                case .resume: task.resume()
                case .cancelWithResumeData: hosted.runner.cancelKeepingResumeData(task)
                case .cancel: task.cancel()
                case .invalidate: break
                }
                done += 1
            } else if action == .resume, let t = try journal.task(session: name, number: key.number), t.state == .suspended {
                // Suspended when the last daemon stopped: it starts now. Journaled as queued
                // first, so a second `resume` (another client) does not start it twice.
                try move(t, to: .queued)
                done += try restart([t])
            } else if number != nil {
                throw DaemonError("task \(name):\(key.number) is not running (\(try journal.task(session: name, number: key.number)?.state.rawValue ?? "gone"))")
            }
        }
        // The reply comes once the journal has the changes it caused (a kill -9 after the
        // answer must not undo them).
        flush()
        return "\(action.rawValue): \(done) task(s)"
    }
}
