import Foundation

extension TransferTask {
    /// Foundation's `Progress` for this task (URLSession's `task.progress`): bytes received
    /// (bytes sent for uploads) against the expected total, indeterminate while the total is
    /// unknown, whole once the task succeeds; `.throughputKey` and `.estimatedTimeRemainingKey`
    /// in its user info. One object per task, made on first use, its figures refreshed each
    /// time it is read (not pushed as bytes move: read it when you draw).
    public var progress: Progress {
        let (p, figures) = core.withLock { c -> (Progress, TaskProgressFigures) in
            let p = c.progress ?? {
                let made = Progress(totalUnitCount: -1)
                made.kind = .file
                // corelibs has no `.uploading` kind: an upload's progress says no file operation.
                if kind != .upload {
                    made.setUserInfoObject(Progress.FileOperationKind.downloading, forKey: ProgressUserInfoKey.fileOperationKindKey)
                }
                c.progress = made
                return made
            }()
            let ended = c.machine.state == .completed
            let elapsed = (ended ? c.metrics.taskIntervalEnd ?? Date() : Date()).timeIntervalSince(c.metrics.taskIntervalStart)
            return (p, .compute(kind: kind, received: c.countOfBytesReceived, expectedToReceive: c.countOfBytesExpectedToReceive,
                                sent: c.countOfBytesSent, expectedToSend: c.countOfBytesExpectedToSend,
                                succeeded: ended && c.error == nil, elapsed: elapsed))
        }
        p.totalUnitCount = figures.total
        p.completedUnitCount = figures.completed
        p.setUserInfoObject(figures.throughput.map { NSNumber(value: $0) } as Any?, forKey: ProgressUserInfoKey.throughputKey)
        p.setUserInfoObject(figures.estimatedTimeRemaining.map { NSNumber(value: $0) } as Any?,
                            forKey: ProgressUserInfoKey.estimatedTimeRemainingKey)
        return p
    }
}
