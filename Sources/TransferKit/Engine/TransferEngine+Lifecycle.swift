import CCurl
import Foundation

extension TransferEngine {
    // MARK: start

    func start(_ task: TransferTask, requestedAt: UInt64) {
        let sink = sinkKind(for: task)
        guard let placeholder = spareHandles.take() else {
            task.fail(TransferError(.unknown, "libcurl could not create a handle"))
            return
        }
        let t = Transfer(task: task, engine: self, easy: placeholder, sink: sink)
        // The fetch starts when the task asked, not when this thread got to it: a wait behind
        // earlier set-up work (a long list's bounded turns, the trust store of the session's
        // first https request) is queue time, visible in `queued`, not lost before it.
        t.hopStart = min(requestedAt, t.hopStart)
        t.taskStart = t.hopStart
        transfers[ObjectIdentifier(task)] = t
        do {
            // A new download's file is created when its first body bytes outgrow the small
            // buffer, or at the end: queued tasks own no file.
            if let r = task.resumeFrom { try openPartialFile(t, r) }
            if case .file(let url) = task.upload { try openUploadFile(t, url) }
            if case .segments(let s) = task.upload { t.uploadSegments = try SegmentedBody(s) }
            // The placeholder is configured, not replaced: one handle made per task.
            let cache = cacheDecision(t)
            t.easy = try makeEasy(for: t, using: placeholder)
            switch cache {
            case .useStored?:
                beginTransaction(t)
                serveFromCache(t)
                return
            case .fail?:
                beginTransaction(t)
                finish(t, error: Self.cacheMissError(t))
                return
            default: break
            }
        } catch {
            finish(t, error: error)
            return
        }
        beginTransaction(t)
        if case .streamed? = task.upload { requestBodyStream(t) } else { attach(t) }
    }

    func sinkKind(for task: TransferTask) -> Transfer.Sink {
        if task.kind == .download { return .file }
        let hasHandler = task.core.withLock { $0.completion != nil }
        return hasHandler || !(task.session.delegate is any TransferDataDelegate) ? .collect : .delegate
    }

    func openUploadFile(_ t: Transfer, _ url: URL) throws(TransferError) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw TransferError(.cannotOpenFile, "cannot open the upload file \(url.path): \(String(cString: strerror(errno)))")
        }
        t.uploadFD = fd
    }

    /// Adds a live transaction record for the hop that is starting.
    func beginTransaction(_ t: Transfer) {
        t.headOut = ""
        let record = TransactionMetrics(method: t.request.httpMethod, url: t.request.url.absoluteString,
                                        requestHeaders: t.request.headers, fetchStartDate: clock.date(t.hopStart))
        t.task.core.withLock { c in
            c.currentRequest = t.request
            c.metrics.transactionMetrics.append(record)
            c.metrics.redirectCount = t.redirects
        }
    }

    // MARK: suspend and resume

    func suspend(_ t: Transfer) {
        perform(t.flow.suspend(now: Monotonic.now()), t)
    }

    func resume(_ t: Transfer) {
        guard t.flow.isSuspended else { return }
        let now = Monotonic.now()
        t.lastActivity = now
        perform(t.flow.resume(now: now, waitsForDecision: t.exchange.awaitsDecision), t)
    }

    /// Performs what the flow-control machine asked for.
    func perform(_ actions: [FlowControl.Action], _ t: Transfer) {
        for action in actions {
            switch action {
            case .pauseHandle: _ = curl_easy_pause(t.easy.raw, CURLPAUSE_ALL)
            // May deliver buffered data through the write callback before it returns.
            case .unpauseHandle: _ = curl_easy_pause(t.easy.raw, CURLPAUSE_CONT)
            case .unpauseSendingOnly: _ = curl_easy_pause(t.easy.raw, CURLPAUSE_RECV)
            case .detach: detach(t)
            case .restartHop: restartHop(t)
            case .releaseSlot: releaseSlot(t)
            case .retakeSlot: retakeSlot(t)
            }
        }
    }

    /// Starts the current hop afresh on a new handle (after a pre-connection suspend).
    func restartHop(_ t: Transfer) {
        do {
            let easy = try makeEasy(for: t)
            t.easy = easy
            t.dequeuedAt = nil
            t.hopStart = Monotonic.now()
            t.lastActivity = t.hopStart
            attach(t)
        } catch {
            finish(t, error: error)
        }
    }

    // MARK: cancel

    func cancel(_ task: TransferTask, byProducingResumeData: Bool, reply: (@Sendable (Data?) -> Void)?) {
        let error = TransferError.cancelled(url: Redaction.redactURL(task.originalRequest.url.absoluteString))
        guard let t = transfers[ObjectIdentifier(task)] else {
            // Never started (or already finished): complete it without a transfer.
            task.core.withLock { $0.error = error }
            task.apply(.finished(error))
            if let reply { task.session.deliver(awaited: true) { reply(nil) } }
            return
        }
        recordInterruptedHop(t, error)
        detach(t)
        let resumeData = byProducingResumeData ? makeResumeData(t) : nil
        var e = error
        e.resumeData = resumeData
        finish(t, error: e, keepPartialFile: resumeData != nil)
        if let reply { task.session.deliver(awaited: true) { reply(resumeData) } }
    }

    // MARK: timers: the engine owns both timeouts

    struct Deadlines {
        var idle: UInt64?
        var resource: UInt64
    }

    func deadlines(_ t: Transfer) -> Deadlines? {
        guard t.flow.isRunning, !t.exchange.timersStopped else { return nil }
        let requestTimeout = t.request.timeoutInterval ?? configuration.timeoutIntervalForRequest
        // Saturating: a library caller may pass any Double (1e26, .infinity), and a trap here
        // would kill the process.
        let idle = t.dequeuedAt != nil && requestTimeout > 0
            ? NumericBounds.saturatingAdd(t.lastActivity, NumericBounds.clampedNanoseconds(requestTimeout)) : nil
        let resource = NumericBounds.saturatingAdd(t.taskStart + t.flow.suspendedTotal,
                                                   NumericBounds.clampedNanoseconds(configuration.timeoutIntervalForResource))
        return Deadlines(idle: idle, resource: resource)
    }

    func expiredTimer(_ t: Transfer, _ d: Deadlines, now: UInt64) -> TransferError? {
        // Cheap comparisons first: this runs for every transfer on every timer scan.
        let idleFired = d.idle.map { now >= $0 } ?? false
        guard idleFired || now >= d.resource else { return nil }
        let url = Redaction.redactURL(t.request.url.absoluteString)
        if idleFired {
            return TransferError(.timedOut, "no data for \(formatSeconds(t.request.timeoutInterval ?? configuration.timeoutIntervalForRequest)) (timeoutIntervalForRequest)", failingURL: url)
        }
        if now >= d.resource {
            return TransferError(.timedOut, "the task took longer than \(formatSeconds(configuration.timeoutIntervalForResource)) (timeoutIntervalForResource)", failingURL: url)
        }
        return nil
    }

    func formatSeconds(_ s: TimeInterval) -> String {
        s == s.rounded() && abs(s) < 1e15 ? "\(Int(s)) s" : String(format: "%.3g s", s)
    }
}
