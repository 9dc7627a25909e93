import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit

extension BackgroundHost {
    /// The monitor's feed (`DaemonRequest.watch`, DECISIONS 128): the sessions' status when
    /// something changed. The journal is read again only when its bell rang for a change (a
    /// state change, a new session; not a progress checkpoint) and then the whole picture is
    /// sent; between such rings, while a task runs, the running tasks take their byte counts
    /// from their runners four times a second and only the counts that changed are sent
    /// (`.progress`): a tick costs as much as tasks run, not as the journal holds. When nothing
    /// runs and the bell is silent the thread wakes every 5 s only to see whether its client is
    /// still there.
    ///
    /// `watch(nil)` (a local run's monitor) lists the sessions that are not invalidated, those
    /// with an unfinished task, and those this watch has already shown (a row does not vanish
    /// under the user when its session ends); an old daemon's finished sessions stay out.
    func watch(_ name: String?, on channel: LineChannel) throws {
        var picture = WatchPicture()
        var readAt: UInt64? = nil
        var shown: Set<String> = []
        var last: [BackgroundSessionStatus]? = nil
        var (pending, whole) = (false, true)
        var sentAt = Date.distantPast
        while true {
            let seen = bell.count
            let changes = bell.changes
            if changes != readAt {
                do { picture = try journalPicture(name, keeping: shown) } catch {
                    // Any failure ends this watch with its reason; the monitor says it and backs off.
                    let why = (error as? DaemonError)?.message ?? "journal: \(error)"
                    try channel.send(DaemonReply.failure(why))
                    return
                }
                (readAt, pending, whole) = (changes, true, true)
            }
            if picture.busy, patchLive(&picture) { pending = true }
            if pending, picture.statuses != last {
                // A burst of state changes (a thousand tasks completing) is sent as one picture.
                let pause = 0.2 - Date().timeIntervalSince(sentAt)
                if pause > 0 {
                    Thread.sleep(forTimeInterval: pause)
                    continue
                }
                if whole || last == nil {
                    try channel.send(DaemonReply.status(picture.statuses))
                    shown.formUnion(picture.statuses.map(\.name))
                } else if let last {
                    // Same journal read as the last picture: the same places, only bytes moved.
                    let moved = picture.running.compactMap { e -> BackgroundTaskProgress? in
                        let now = picture.statuses[e.session].tasks[e.task]
                        guard now != last[e.session].tasks[e.task] else { return nil }
                        return BackgroundTaskProgress(session: picture.statuses[e.session].name, number: now.number,
                                                      bytesReceived: now.bytesReceived, bytesExpected: now.bytesExpected)
                    }
                    try channel.send(DaemonReply.progress(moved))
                }
                (last, sentAt, whole) = (picture.statuses, Date(), false)
            }
            pending = false
            bell.wait(after: seen, until: Date().addingTimeInterval(picture.busy ? 0.25 : 5))
            if !channel.isOpen { return }
        }
    }

    /// The journal's status of the watched sessions, and where its running tasks are in it.
    struct WatchPicture {
        var statuses: [BackgroundSessionStatus] = []
        /// Running and canceling tasks: their key and their place in `statuses`.
        var running: [(key: TaskKey, session: Int, task: Int)] = []
        var suspended: [(key: TaskKey, session: Int, task: Int)] = []
        var busy: Bool { !running.isEmpty }
    }

    func journalPicture(_ name: String?, keeping shown: Set<String>) throws -> WatchPicture {
        var sessions = try journal.sessions()
        if let name {
            sessions = sessions.filter { $0.name == name }
            if sessions.isEmpty { throw DaemonError("no background session named '\(SafeQuote.quote(name))'") }
        } else {
            let unfinished = try journal.sessionsWithUnfinishedTasks()
            sessions = sessions.filter { !$0.invalidated || unfinished.contains($0.name) || shown.contains($0.name) }
        }
        var picture = WatchPicture()
        for s in sessions {
            let tasks = try journal.tasks(session: s.name).map(Self.status)
            for (i, t) in tasks.enumerated() {
                let entry = (key: TaskKey(session: s.name, number: t.number), session: picture.statuses.count, task: i)
                if t.state == "running" || t.state == "canceling" { picture.running.append(entry) }
                else if t.state == "suspended" { picture.suspended.append(entry) }
            }
            picture.statuses.append(sessionStatus(s, tasks: tasks))
        }
        patchLive(&picture)
        // A suspended task's runner has bytes newer than the last checkpoint; they do not move.
        swap(&picture.running, &picture.suspended)
        patchLive(&picture)
        swap(&picture.running, &picture.suspended)
        return picture
    }

    /// Running tasks take their byte counts from their runner's task, which is newer than the
    /// journal's checkpoint. True when a count changed.
    @discardableResult
    func patchLive(_ picture: inout WatchPicture) -> Bool {
        let live = state.withLock { s in picture.running.map { s.live[$0.key] } }
        var changed = false
        for (entry, hosted) in zip(picture.running, live) {
            guard let (hosted, tid) = hosted, let task = hosted.runner.task(tid) else { continue }
            let snap = task.snapshot()
            let received = snap.countOfBytesReceived + snap.countOfBytesSent
            let expected = snap.countOfBytesExpectedToReceive > 0 ? snap.countOfBytesExpectedToReceive : nil
            var status = picture.statuses[entry.session].tasks[entry.task]
            guard status.bytesReceived != received || (expected != nil && status.bytesExpected != expected) else { continue }
            status.bytesReceived = received
            if let expected { status.bytesExpected = expected }
            picture.statuses[entry.session].tasks[entry.task] = status
            changed = true
        }
        return changed
    }
}
