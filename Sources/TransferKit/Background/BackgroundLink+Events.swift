import BackgroundWire
import Foundation

extension BackgroundLink {
    /// Tasks the daemon has that this process has not seen end: made again, in the state the
    /// journal has them, so `allTasks` lists them and their events find them (DECISIONS 131:
    /// they get new task identifiers; the daemon's number stays theirs).
    func restore(_ listed: [LibraryTask]) {
        guard let session else { return }
        // A task whose completion this process delivered but whose acknowledgement a dying
        // daemon lost is listed again: made anew it would wait forever for an event already
        // handled (its seq is below lastSeq), so it is not made again.
        for t in listed where state.withLock({ $0.tasks[t.number] == nil && !$0.finished.contains(t.number) }) {
            guard let url = URL(string: t.url) else { continue }
            let task = session.register { TransferDownloadTask(session: session, identifier: $0, kind: .download, request: TransferRequest(url: url)) }
            task.core.withLock { c in
                _ = c.machine.handle(.adoptRunningTransfer)
                if t.state == "suspended" { _ = c.machine.handle(.suspend) }
                c.countOfBytesReceived = t.bytesReceived
                c.countOfBytesExpectedToReceive = t.bytesExpected ?? -1
            }
            state.withLock { s in
                s.numbers[task.taskIdentifier] = t.number
                s.tasks[t.number] = task
            }
        }
    }

    /// The event stream's thread: each event to its task, then its acknowledgement queued on
    /// the delegate queue behind the delegate calls it caused.
    func read(_ channel: LineChannel) {
        // A line this library cannot read is skipped, not the end of the stream: the stream
        // opened again would replay it at once, for ever (review 9).
        let skipped = { [self] (why: DaemonError) -> Void in session?.emit(.delegateCallback("background"), detail: "skipped from the daemon: \(why)") }
        while let reply = try? channel.receiveSkipping(LibraryReplyEnvelope.self, skipped: skipped) {
            state.withLock { $0.reattempts = 0 }
            switch reply {
            case .library(.event(let event)): handle(event)
            case .library(.progress(let number, let received, let expected)): progress(number, received, expected)
            case .failure(let why): skipped(DaemonError(why))
            default: continue
            }
        }
        // The daemon went away (stopped, or killed): its journal has the tasks. With tasks
        // still waiting for their outcome, a new daemon is started at once and restores them
        // (DECISIONS 131); the stream starts again after the last event handled here.
        let waiting = state.withLock { s -> Bool in
            guard s.events === channel else { return false }
            s.attached = false
            s.events = nil
            s.command = nil
            return !s.ended && !s.tasks.isEmpty
        }
        if waiting { reattach() }
    }

    /// Attaches again for the tasks still waiting, backing off while the daemon keeps failing
    /// (no message since the last try); after a few tries the waiting tasks fail with the
    /// reason instead of waiting for ever.
    func reattach() {
        let attempt = state.withLock { s -> Int in
            defer { s.reattempts += 1 }
            return s.reattempts
        }
        guard attempt < 6 else { return failWaiting("the daemon cannot be reached again after \(attempt) tries") }
        let delay = attempt == 0 ? 0 : 0.1 * Double(1 << (attempt - 1))  // 0, 0.1 … 1.6 s
        queue.asyncAfter(deadline: .now() + delay) { [self] in
            do { try attach(start: true) } catch {
                if state.withLock({ $0.attached || $0.ended || $0.tasks.isEmpty }) { return }
                if state.withLock({ $0.reattempts }) >= 6 { failWaiting("\(error)") } else { reattach() }
            }
        }
    }

    /// Ends every task still waiting for the daemon's outcome with `why`.
    func failWaiting(_ why: String) {
        let waiting = state.withLock { s -> [(Int64, TransferTask)] in
            defer { s.tasks = [:] }
            for n in s.tasks.keys { s.finished.insert(n) }
            return Array(s.tasks)
        }
        for (_, task) in waiting { finishHere(task, TransferError(.cannotConnectToHost, "background session '\(identifier)': \(why)")) }
    }

    func handle(_ event: LibraryEvent) {
        // A submission being answered registers its number first. The app's code (a
        // cancel(byProducingResumeData:) handler) runs after `routing` is released: it may
        // invalidate the session, whose end() waits for the queue a submission holds it on.
        routing.lock()
        let answer = route(event)
        routing.unlock()
        answer?()
    }

    func route(_ event: LibraryEvent) -> (@Sendable () -> Void)? {
        let (fresh, stale) = state.withLock { s -> (Bool, Bool) in
            guard event.seq > s.lastSeq else { return (false, true) }
            s.lastSeq = event.seq
            return (true, event.seq <= s.statesAsOf)
        }
        guard fresh, let session else { return nil }
        let acknowledge = acknowledgement(event)
        if let t = event.task, let task = state.withLock({ $0.tasks[t.number] }) {
            switch t.state {
            case "completed" where task.state != .completed:
                // Acknowledged at the end of the delivery itself: whoever waits for the
                // delegate calls then finds the acknowledgement sent when the queue is idle.
                task.core.withLock { $0.afterDelivery = acknowledge }
                return complete(task, event, t)
            // A `where` binds to its own pattern only: both states need it, or a replayed stale
            // "running" resumes a task restored suspended (and the app's resume() is then ignored).
            case "running" where !stale, "suspended" where !stale:
                task.core.withLock { c in
                    if t.state == "running", c.machine.state == .suspended { _ = c.machine.handle(.resume) }
                    if t.state == "suspended", c.machine.state == .running { _ = c.machine.handle(.suspend) }
                }
                // A state's picture is taken when the daemon journals it, which on a busy
                // machine can be after bytes arrived: they are written data like a checkpoint's,
                // not a silent jump (the checkpoint after it would then find nothing new).
                wrote(task, t.bytesReceived, t.bytesExpected)
            default: break
            }
        }
        // Behind the delivery of every earlier event (the queue is serial).
        session.delegateQueue.async(execute: acknowledge)
        return nil
    }

    /// The daemon's checkpoint of a running task: *didWriteData* with the bytes since the last.
    func progress(_ number: Int64, _ received: Int64, _ expected: Int64?) {
        routing.lock()
        defer { routing.unlock() }
        guard let task = state.withLock({ $0.tasks[number] }), task.state == .running else { return }
        wrote(task, received, expected)
    }

    /// *didWriteData* for the bytes a download has beyond those its delegate was told of.
    /// The caller holds `routing`, so these calls keep the order of the daemon's messages.
    func wrote(_ task: TransferTask, _ received: Int64, _ expected: Int64?) {
        guard let session, let task = task as? TransferDownloadTask else { return }
        let written = task.core.withLock { c -> Int64 in
            guard received > c.countOfBytesReceived else { return 0 }
            defer { c.countOfBytesReceived = received }
            if let expected { c.countOfBytesExpectedToReceive = expected }
            return received - c.countOfBytesReceived
        }
        guard written > 0 else { return }
        let total = expected ?? -1
        session.delegateQueue.async {
            (session.delegate as? any TransferDownloadDelegate)?.session(session, downloadTask: task, didWriteData: written,
                                                                        totalBytesWritten: received, totalBytesExpectedToWrite: total)
        }
    }

    /// Tells the daemon the event reached the delegate. The delegate has had the file (moved,
    /// or deleted after it returned): its directory goes, and the daemon may forget the event.
    func acknowledgement(_ event: LibraryEvent) -> @Sendable () -> Void {
        let seq = event.seq
        let directory = event.path.map { ($0 as NSString).deletingLastPathComponent }
        return { [self] in
            // Only a task directory of this identifier's, named plainly (rmdir removes only an
            // empty one, but not of someone else's either).
            if let directory, case .success(let paths) = paths, !directory.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }),
               (directory as NSString).standardizingPath == directory,
               (directory as NSString).deletingLastPathComponent == LibraryWire.directory(paths, session: identifier) {
                rmdir(directory)
            }
            _ = try? request(.acknowledge(session: identifier, through: seq))
        }
    }

    /// The daemon's outcome of a task, as the engine's would be: its file for
    /// *didFinishDownloadingTo* (deleted after, unless the delegate moved it), then the error.
    /// Returns the app's cancel(byProducingResumeData:) handler's call, for after `routing`.
    func complete(_ task: TransferTask, _ event: LibraryEvent, _ t: LibraryTask) -> (@Sendable () -> Void)? {
        let cancelling = task.state == .canceling
        var error = event.error.map { Self.error($0, cancelling: cancelling, resumeData: event.resumeData, url: task.originalRequest.url) }
        var file: URL?
        if error == nil, task is TransferDownloadTask, let path = event.path {
            // Delivery deletes the file the delegate leaves: only a file of this task's own
            // directory under the daemon's, never whatever path a damaged journal names.
            if let placed = deliverable(path) { file = placed } else {
                error = TransferError(.unknown, "background session '\(identifier)': the daemon named '\(path)' as the download, "
                                      + "which is not a file of this session's directory; nothing was deleted",
                                      failingURL: task.originalRequest.url.absoluteString)
            }
        }
        let response = event.statusCode.map { TransferResponse(url: task.originalRequest.url, statusCode: $0, headers: []) }
        // The bytes since the last checkpoint reach didWriteData before the completion.
        wrote(task, t.bytesReceived, t.bytesExpected)
        task.core.withLock { c in
            c.error = error
            if let file { c.downloadFile = file }
            if let response { c.response = response }
            c.countOfBytesReceived = t.bytesReceived
            if let expected = t.bytesExpected { c.countOfBytesExpectedToReceive = expected }
            c.producedResumeData = error?.resumeData
        }
        let reply = state.withLock { s -> (@Sendable (Data?) -> Void)? in
            s.tasks[t.number] = nil
            s.finished.insert(t.number)
            return s.resumeReplies.removeValue(forKey: task.taskIdentifier)
        }
        // Run by the reader once `routing` is released (the handler may end the session), the
        // handler first and then the finish that queues didCompleteWithError: the engine's
        // order. Run from two threads, a CI run under ASan printed them the other way round.
        let (resumeData, finished) = (error?.resumeData, error)
        return {
            reply?(resumeData)
            task.apply(.finished(finished))
        }
    }

    /// `path` if it is a plain file directly in a task directory of this session's
    /// (`<state>/background/<identifier>/<task>/<file>`), with no `..` and no symbolic link on
    /// the way; nil otherwise.
    func deliverable(_ path: String) -> URL? {
        guard case .success(let paths) = paths, path.hasPrefix("/"),
              !path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        let file = URL(fileURLWithPath: path)
        let taskDirectory = file.deletingLastPathComponent()
        let sessionDirectory = URL(fileURLWithPath: LibraryWire.directory(paths, session: identifier))
        guard taskDirectory.deletingLastPathComponent().path == sessionDirectory.path,
              taskDirectory.lastPathComponent != "", taskDirectory.lastPathComponent != ".." else { return nil }
        // Symbolic links: the real task directory must be where the session's real one says,
        // and the file itself not a link.
        guard taskDirectory.resolvingSymlinksInPath().path
                == sessionDirectory.resolvingSymlinksInPath().appendingPathComponent(taskDirectory.lastPathComponent).path else { return nil }
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return file
    }

    /// The daemon journals an error as its text, `code (raw): message`: the code comes back
    /// from it; a placement problem or a cancellation of the daemon's own is `.unknown` or
    /// `.cancelled`.
    static func error(_ text: String, cancelling: Bool, resumeData: Data?, url: URL) -> TransferError {
        var code: TransferError.Code = cancelling ? .cancelled : .unknown
        var message = text
        if let open = text.firstIndex(of: "("), let close = text[open...].firstIndex(of: ")"),
           let raw = Int(text[text.index(after: open)..<close]), let known = TransferError.Code(rawValue: raw),
           text[close...].hasPrefix("): ") {
            code = known
            message = String(text[text.index(close, offsetBy: 3)...])
        } else if text.hasPrefix("cancelled") {
            code = .cancelled
        }
        return TransferError(code, message, failingURL: url.absoluteString, resumeData: resumeData)
    }
}
