import Foundation

extension TransferSession {
    /// Delivers a task's outcome on the delegate queue, in the seeds' order: download
    /// hand-over (*didFinishDownloadingTo*, file deleted after), *didFinishCollectingMetrics*,
    /// then *didCompleteWithError* — or the completion handler instead of the delegate's
    /// response, data and completion callbacks.
    func deliverCompletion(of task: TransferTask, error: TransferError?) {
        // A completion handler (and so every async call: `data(for:)`, `download(for:)`...)
        // is a caller waiting: never held by `deliveryCoalescingInterval` (review).
        let awaited = task.core.withLock { $0.completion != nil }
        deliver(awaited: awaited) { [self] in
            let (completion, body, taken, memoryBody, response, metrics) = task.core.withLock { c in
                let completion = c.completion
                c.completion = nil
                let body = c.body
                c.body = nil
                let memoryBody = c.downloadBody
                c.downloadBody = nil
                return (completion, body, c.downloadFile, memoryBody, c.response, c.metrics)
            }
            let roles = delegateRoles
            let delegate = roles.task
            var error = error
            var file = taken
            var held: Int32 = -1
            if let memoryBody {
                switch placeMemoryBody(memoryBody, of: task, offeringTo: completion == nil ? roles.download : nil) {
                case .handledByDelegate: break
                case .written(let fd, let url): (held, file) = (fd, url)
                case .failed(let e):
                    error = e
                    task.core.withLock { $0.error = e }
                }
            }
            defer {
                let delivered = task.core.withLock { c -> (@Sendable () -> Void)? in
                    c.downloadFile = nil
                    if held < 0 { held = c.heldFileDescriptor }
                    c.heldFileDescriptor = -1
                    defer { c.afterDelivery = nil }
                    return c.afterDelivery
                }
                // Usually moved away by the delegate already; if not, it is removed, but only
                // while the name is still our file (`FileIdentity`).
                if let file {
                    if held >= 0 { FileIdentity.unlinkIfSame(file.path, as: held) } else { unlink(file.path) }
                }
                if held >= 0 { close(held) }  // releases the partial file's lock, now it is placed
                emit(.taskStateChanged(.completed), task: task, detail: TaskOutcome.text(error: error, statusCode: response?.statusCode))
                delivered?()
                taskDidFinish(task)
            }
            if let file, completion == nil, let download = task as? TransferDownloadTask, let dd = roles.download {
                emit(.delegateCallback("didFinishDownloadingTo"), task: task)
                dd.session(self, downloadTask: download, didFinishDownloadingTo: file)
            }
            emit(.delegateCallback("didFinishCollectingMetrics"), task: task,
                 detail: "\(metrics.transactionMetrics.count) transaction(s)")
            delegate?.session(self, task: task, didFinishCollecting: metrics)
            switch completion {
            // A failed task hands over no data, as Foundation's: nil, not the bytes so far.
            case .data(let handler)?: handler(error == nil ? body ?? Data() : nil, response, error)
            case .download(let handler)?: handler(file, response, error)
            case nil:
                emit(.delegateCallback("didCompleteWithError"), task: task, detail: error.map { "\($0.code)" } ?? "nil")
                delegate?.session(self, task: task, didCompleteWithError: error)
            }
        }
    }

    enum MemoryBodyOutcome {
        case handledByDelegate
        /// The file's descriptor is open (and so `flock`ed) until the delegate has moved it.
        case written(Int32, URL)
        case failed(TransferError)
    }

    /// A finished download still in memory: offered whole to a download delegate first
    /// (`didFinishDownloadingBody`), else written once to a new temporary file, here on the
    /// delegate queue rather than on the transfer thread.
    private func placeMemoryBody(_ memory: (data: Data, url: URL), of task: TransferTask,
                                 offeringTo delegate: (any TransferDownloadDelegate)?) -> MemoryBodyOutcome {
        if let download = task as? TransferDownloadTask, let dd = delegate,
           dd.session(self, downloadTask: download, didFinishDownloadingBody: memory.data) {
            emit(.delegateCallback("didFinishDownloadingBody"), task: task, detail: "\(memory.data.count) bytes")
            return .handledByDelegate
        }
        do {
            let (fd, url) = try engine.downloads.make(named: memory.url, taskIdentifier: task.taskIdentifier, partialDirectory: engine.partialDirectory)
            let ok = memory.data.withUnsafeBytes { DownloadFiles.writeAll(fd, $0) }
            if !ok {
                let e = TransferError(.cannotWriteToFile, "cannot write the download \(url.path): \(String(cString: strerror(errno)))")
                close(fd)
                unlink(url.path)
                return .failed(e)
            }
            return .written(fd, url)
        } catch {
            return .failed(error)
        }
    }

    /// Called on the delegate queue once a task's outcome was delivered.
    func taskDidFinish(_ task: TransferTask) {
        let finishInvalidation = core.withLock { c -> Bool in
            c.liveTaskIDs.remove(task.taskIdentifier)
            return c.state == .invalidating && c.liveTaskIDs.isEmpty
        }
        if finishInvalidation { completeInvalidation() }
    }

    // MARK: invalidation

    /// Lets every outstanding task finish, refuses new ones, then delivers
    /// *didBecomeInvalidWithError* and lets go of the delegate.
    public func finishTasksAndInvalidate() {
        guard !isShared else { return }  // like URLSession's shared
        let done = core.withLock { c -> Bool? in
            guard c.state == .active else { return nil }
            c.state = .invalidating
            return c.liveTaskIDs.isEmpty
        }
        guard let done else { return }
        emit(.sessionStateChanged(.invalidating))
        if done { delegateQueue.async { self.completeInvalidation() } }
    }

    /// Cancels every outstanding task, refuses new ones, then invalidates as above.
    public func invalidateAndCancel() {
        guard !isShared else { return }
        // Also valid while `finishTasksAndInvalidate()` is waiting: it then cancels the rest.
        let (live, wasActive, proceed) = core.withLock { c -> ([TransferTask], Bool, Bool) in
            let wasActive = c.state == .active
            if wasActive { c.state = .invalidating }
            return (c.tasks.filter { c.liveTaskIDs.contains($0.taskIdentifier) }, wasActive, c.state == .invalidating)
        }
        guard proceed else { return }
        if wasActive { emit(.sessionStateChanged(.invalidating)) }
        if live.isEmpty {
            if wasActive { delegateQueue.async { self.completeInvalidation() } }
            return
        }
        for task in live { task.cancel() }
    }

    /// On the delegate queue: the last callback, then the engine's thread and handles go.
    func completeInvalidation() {
        let (proceed, delegate) = core.withLock { c -> (Bool, (any TransferSessionDelegate)?) in
            guard c.state == .invalidating, !c.invalidationCompleting else { return (false, nil) }
            c.invalidationCompleting = true
            let d = c.delegate
            c.delegate = nil
            return (true, d)
        }
        guard proceed else { return }
        engine.shutdown()  // handles gone, cookies written: only then is the session invalidated
        backgroundLink?.end()
        core.withLock { $0.state = .invalidated }
        // Its background identifier may be used again (not by a duplicate, which never held it).
        if duplicateBackgroundIdentifier == nil, case .background(let identifier) = configuration.kind {
            _ = Self.liveBackgroundIdentifiers.withLock { $0.remove(identifier) }
        }
        emit(.delegateCallback("didBecomeInvalidWithError"))
        delegate?.session(self, didBecomeInvalidWithError: nil)
        emit(.sessionStateChanged(.invalidated))
    }
}
