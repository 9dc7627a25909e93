import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit
import TransferTopRun

extension BackgroundHost {
    /// A new daemon picks up what the last one left (kill -9 included): running and queued
    /// tasks start again and resume from their partial files (the crash-recovery records of a
    /// rerun, DECISIONS 120); suspended ones stay suspended until resumed; a task caught
    /// canceling ends cancelled (its resume data is in the resume store); completed ones stay.
    func restore() throws {
        // Before any task starts again: a restarted task runs within what the user set. A
        // journal that cannot say (its optional table could not be made) runs without them.
        let sessions = try journal.sessions()
        var kept = (try? journal.limits()) ?? [:]
        // An invalidated session's (kept by an earlier build, which did not drop them): a
        // session made again under the name must not inherit them.
        for s in sessions where s.invalidated && kept[s.name] != nil {
            kept[s.name] = nil
            try? journal.dropLimits(session: s.name)
        }
        state.withLock { $0.limits = kept }
        for session in sessions {
            // An invalidated session's leftovers (the daemon died before they ended) end now.
            if session.invalidated {
                for t in try journal.tasks(session: session.name) where t.state != .completed {
                    try finish(t, error: "cancelled (session invalidated)")
                }
            }
            // What the last daemon kept for a follower that had not read it yet: nobody follows
            // now. Housekeeping: a failure leaves the events, never the restore undone.
            _ = try? journal.pruneSupersededEvents(session: session.name, kind: "state")
        }
        for session in sessions where !session.invalidated {
            let unfinished = try journal.tasks(session: session.name).filter { $0.state != .completed }
            guard !unfinished.isEmpty else { continue }
            for t in unfinished where t.state == .canceling {
                try finish(t, error: "cancelled (the daemon stopped while cancelling; resume data kept)")
            }
            let again = unfinished.filter { $0.state == .running || $0.state == .queued }
            let started = try restart(again)
            let ended = again.count - started
            appendNote(session.name, "daemon restarted: \(started) task(s) resumed, "
                       + (ended > 0 ? "\(ended) ended (see their errors), " : "")
                       + "\(unfinished.filter { $0.state == .suspended }.count) suspended")
        }
        bell.ring()
    }

    /// Starts journaled tasks again, one runner per submission, from the submission's options;
    /// ends (with the reason as their error) those that cannot start. Returns how many started.
    @discardableResult
    func restart(_ tasks: [JournalTask]) throws -> Int {
        var started = 0
        let submissions = Dictionary(uniqueKeysWithValues: try journal.submissions(session: nil).map { ($0.id, $0) })
        for (id, group) in Dictionary(grouping: tasks, by: \.submission) {
            guard let sub = submissions[id], let submitted = try? SubmittedOptions.decode(sub.options) else {
                for t in group { try finish(t, error: "its submission cannot be read from the journal; submit again") }
                continue
            }
            var options = submitted.options
            // Secrets never reach the journal: without them the task cannot go on.
            if submitted.hadSecrets {
                for t in group { try finish(t, error: "credentials are not kept on disk; submit it again") }
                continue
            }
            options.urls = group.map(\.url)
            do {
                let plan = try Preparation.plan(options)
                start(session: sub.session, submission: id, plan: plan,
                      numbers: Dictionary(group.map { ($0.url, $0.number) }, uniquingKeysWith: { a, _ in a }))
                started += group.count
            } catch {
                for t in group { try finish(t, error: "cannot restart: \((error as? UsageError)?.reason ?? "\(error)")") }
            }
        }
        return started
    }

    /// Ends a journaled task that will not run again, with an event.
    func finish(_ t: JournalTask, error: String) throws { try move(t, to: .completed, error: error) }

    /// Journals a state the daemon gives a task itself (no engine task behind it), with its event.
    func move(_ t: JournalTask, to state: JournalTaskState, error: String? = nil) throws {
        var status = Self.status(t)
        status.state = state.rawValue
        status.error = error
        let event = try journal.record(session: t.session, task: t.number, state: state, error: error, event: "state",
                                       payload: try JSONEncoder().encode(BackgroundEvent(seq: 0, session: t.session, kind: "state", task: status, note: nil)))
        if state == .completed { try pruneSuperseded(event) }
    }

    /// `daemon stop` and SIGTERM: downloads are cancelled with resume data and stay unfinished
    /// in the journal, so the next daemon resumes them; returns once everything is on disk.
    func stopAll() {
        let all = state.withLock { s -> [Hosted] in
            s.stopping = true
            return Array(s.running.values)
        }
        for h in all { h.runner.interrupt() }
        for h in all { h.runner.wait() }
        flush()
        progress.flush()
    }
}
