import Foundation
import TransferModel

extension MonitorModel {
    /// How long a task cancelled with `d` may show `canceling` while its resume data is on the
    /// way; a cancel that produces none (the server stopped being resumable) must not stay
    /// `canceling` for ever.
    static let resumeDataPatience: TimeInterval = 3

    /// The task's cancel is still producing resume data: URLSession's cancel-with-resume-data
    /// hands the data over after the task completes, so by the snapshot alone the task looks
    /// finished while the data is not there yet (otherwise canceling is never visible).
    /// Such tasks are drawn as `canceling` until the data arrives, at most `resumeDataPatience`.
    mutating func holdCancelingWhileResumeDataIsMade() {
        guard !awaitingResumeData.isEmpty else { return }
        // Changed on a copy, assigned once: every assignment to `sessions` sums them again.
        var sessions = self.sessions
        var changed = false
        defer { if changed { self.sessions = sessions } }
        for s in sessions.indices {
            for t in sessions[s].tasks.indices {
                let task = sessions[s].tasks[t]
                guard let since = awaitingResumeData[task.id], task.state == .completed else { continue }
                let done = resumeDataAvailable.contains(task.id) || task.error?.resumeData != nil
                    || task.error?.code != .cancelled
                if done {
                    awaitingResumeData[task.id] = nil
                } else if let since {
                    if now.timeIntervalSince(since) > Self.resumeDataPatience {
                        awaitingResumeData[task.id] = nil
                    } else {
                        sessions[s].tasks[t].state = .canceling
                        changed = true
                    }
                } else {
                    awaitingResumeData[task.id] = now
                    sessions[s].tasks[t].state = .canceling
                    changed = true
                }
            }
        }
    }
}
