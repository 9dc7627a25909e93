import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit

extension BackgroundHost {
    /// The monitor's feed (`DaemonRequest.watch`, DECISIONS 128): the sessions' status when
    /// something changed. State changes ring the bell; progress does not (it is checkpointed
    /// once a second), so while a task runs the picture is taken again four times a second
    /// with the live byte counts of the runners. An idle session wakes this thread only to
    /// notice a client that went away.
    func watch(_ name: String?, on channel: LineChannel) throws {
        var last: [BackgroundSessionStatus]? = nil
        var sentAt = Date.distantPast
        while true {
            let seen = bell.count
            let picture: [BackgroundSessionStatus]
            do { picture = try livePicture(name) } catch let e as DaemonError {
                try channel.send(DaemonReply.failure(e.message))
                return
            }
            if picture != last {
                // A burst of state changes (a thousand tasks completing) is sent as one picture.
                let pause = 0.2 - Date().timeIntervalSince(sentAt)
                if pause > 0 { Thread.sleep(forTimeInterval: pause); continue }
                try channel.send(DaemonReply.status(picture))
                (last, sentAt) = (picture, Date())
            }
            let busy = picture.contains { $0.tasks.contains { $0.state == "running" || $0.state == "canceling" } }
            bell.wait(after: seen, until: Date().addingTimeInterval(busy ? 0.25 : 5))
            if !channel.isOpen { return }
        }
    }

    /// `status` without forcing a progress checkpoint: running tasks take their byte counts
    /// from their runner's task, which is newer than the journal's.
    func livePicture(_ name: String?) throws -> [BackgroundSessionStatus] {
        let sessions = try journal.sessions().filter { name == nil || $0.name == name }
        if let name, sessions.isEmpty { throw DaemonError("no background session named '\(SafeQuote.quote(name))'") }
        let tasks = Dictionary(grouping: try journal.tasks(session: name), by: \.session)
        let live = state.withLock { $0.live }
        return sessions.map { s in
            BackgroundSessionStatus(name: s.name, invalidated: s.invalidated, tasks: (tasks[s.name] ?? []).map { t in
                var status = Self.status(t)
                if status.state != "completed", let (hosted, tid) = live[TaskKey(session: s.name, number: t.number)],
                   let task = hosted.runner.task(tid) {
                    let snap = task.snapshot()
                    status.bytesReceived = snap.countOfBytesReceived + snap.countOfBytesSent
                    if snap.countOfBytesExpectedToReceive > 0 { status.bytesExpected = snap.countOfBytesExpectedToReceive }
                }
                return status
            })
        }
    }
}
