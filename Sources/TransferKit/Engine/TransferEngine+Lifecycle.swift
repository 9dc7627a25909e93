import CCurl
import Foundation

extension TransferEngine {
    // MARK: start

    func start(_ task: TransferTask, requestedAt: UInt64) {
        let sink = Transfer.Sink.of(task)
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
        t.ownRateLimit = task.core.withLock { $0.rateLimit }
        let cache: CacheDecision?
        do {
            // A new download's file is created when its first body bytes outgrow the small
            // buffer, or at the end: queued tasks own no file.
            if let r = t.resumeFrom { try openPartialFile(t, r) }
            if case .file(let url) = task.upload { t.uploadFD = try SegmentedBody.openForReading(url) }
            if case .segments(let s) = task.upload { t.uploadSegments = try SegmentedBody(s) }
            // The placeholder is configured, not replaced: one handle made per task.
            cache = httpCache?.decide(t)
            t.easy = try configurator.makeEasy(for: t, using: placeholder, steps: self)
        } catch {
            finish(t, error: error)
            return
        }
        // The hop's live record, whoever answers it: the cache, or the network.
        recorder.begin(t)
        switch cache {
        case .useStored?:
            httpCache?.serve(t, headComplete: responseHeadComplete, finish: { finish(t, error: $0) })
        case .fail?:
            finish(t, error: CacheParticipation.missError(t))
        default:
            if case .streamed? = task.upload { requestBodyStream(t) } else { attach(t) }
        }
    }

    // MARK: suspend and resume

    func suspend(_ t: Transfer) {
        let actions = t.flow.suspend(now: Monotonic.now())
        noteSuspend(t, actions)
        perform(actions, t)
    }

    func resume(_ t: Transfer) {
        guard t.flow.isSuspended else { return }
        let now = Monotonic.now()
        t.lastActivity = now
        t.heldConnection.resumed()
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
            let easy = try configurator.makeEasy(for: t, steps: self)
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
        recorder.recordInterruptedHop(t, error)
        detach(t)
        let resumeData = byProducingResumeData ? makeResumeData(t) : nil
        var e = error
        e.resumeData = resumeData
        finish(t, error: e, keepPartialFile: resumeData != nil)
        if let reply { task.session.deliver(awaited: true) { reply(resumeData) } }
    }

    // MARK: timers: the engine owns both timeouts (Machines/TransferTimers.swift)

    func deadlines(_ t: Transfer) -> TransferTimers.Deadlines? {
        TransferTimers.deadlines(timersRun: t.flow.isRunning && !t.exchange.timersStopped, leftQueue: t.dequeuedAt != nil,
                                 lastActivity: t.lastActivity, taskStart: t.taskStart, suspendedTotal: t.flow.suspendedTotal,
                                 requestTimeout: requestTimeout(t), resourceTimeout: configuration.timeoutIntervalForResource)
    }

    func requestTimeout(_ t: Transfer) -> TimeInterval { t.request.timeoutInterval ?? configuration.timeoutIntervalForRequest }

    func expiredTimer(_ t: Transfer, _ d: TransferTimers.Deadlines, now: UInt64) -> TransferError? {
        guard let expiry = TransferTimers.expiry(d, now: now) else { return nil }
        return TransferError(.timedOut, TransferTimers.message(expiry, requestTimeout: requestTimeout(t),
                                                               resourceTimeout: configuration.timeoutIntervalForResource),
                             failingURL: Redaction.redactURL(t.request.url.absoluteString))
    }
}
