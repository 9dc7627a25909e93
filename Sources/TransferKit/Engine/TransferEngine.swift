import CCurl
import Foundation

/// The transfer thread of one session: owns its libcurl multi handle, share handle and every
/// easy handle, and is driven by a command queue plus `curl_multi_wakeup`.
///
/// Loop: drain commands → `curl_multi_perform` → read finished transfers → publish progress,
/// flush data, fire the engine's own timers → `curl_multi_poll` until the next deadline or a
/// wakeup. An idle session sleeps in poll and uses no CPU.
final class TransferEngine: @unchecked Sendable {
    // @unchecked: `inbox` and `thread` are behind locks; every other mutable field is
    // touched only on the transfer thread (set up in `run`, torn down before it returns).

    typealias Command = EngineCommand

    /// Data for the delegate is coalesced into chunks of this size (or one loop iteration).
    static let deliveryChunk = 1024 * 1024
    /// Chunks queued to a data delegate before the transfer pauses, and the level that
    /// resumes it: at most ~16 MiB waits for a slow delegate (wide hysteresis: few pauses).
    static let highWater = 16
    static let lowWater = 8
    static let progressInterval: UInt64 = 100_000_000  // 100 ms between progress events

    let configuration: TransferConfiguration
    let sessionID: Int
    let multi: MultiHandle
    let clock = Monotonic()
    /// The time deadlines are checked against (EngineClock.swift); the monotonic clock in real use.
    let timerClock: any EngineClock
    /// Each hop's transaction record from libcurl's facts (TransactionRecorder.swift).
    let recorder: TransactionRecorder
    /// The HTTP cache's part in each task, when the configuration has one (CacheParticipation.swift).
    let httpCache: CacheParticipation?
    /// Commands from any thread, run by the transfer thread a turn at a time (EngineCommand.swift).
    private let inbox = CommandInbox()
    private let started = Locked(false)

    /// Delegate-queue work of this loop turn, and which thread is the transfer thread
    /// (DeliveryOutbox.swift).
    let outbox: DeliveryOutbox
    // Transfer-thread state.
    let spareHandles = SpareHandles()
    var transfers: [ObjectIdentifier: Transfer] = [:]
    /// Transfers whose callbacks ran since the last `afterPerform`.
    var touched: [Transfer] = []
    /// Counts `afterPerform` calls: a transfer touched in this turn has this number.
    var turn: UInt64 = 1
    var nextScan: UInt64 = 0
    var nextDeadline: UInt64 = .max
    var allSuspended = false
    /// Each host's handles in the multi and the engine's queue for the rest (HostSlots).
    var slots: HostSlots<Transfer>
    /// The session's bandwidth limit and how it is shared (TransferEngine+Limits.swift).
    var rates = RateShares()
    /// Some handle may have a limit set, or one that joins the multi brings its own: the limits
    /// are looked at again at each change.
    var ratesInUse = false
    /// Transfers pausing before another connection attempt (ConnectivityRetry.swift).
    var connectivity: ConnectivityRetry
    /// Makes the files downloads are written to (DownloadFiles.swift); any thread.
    let downloads: DownloadFiles
    /// What the session asked to see of its requests (RequestTrace.swift).
    let trace: RequestTrace
    /// Hosts whose HTTP/2 connection is far enough to need more streams (DistantHosts.swift).
    let distantHosts: DistantHosts
    /// The transfers whose handles are in the multi: the only ones the timer scan visits, so
    /// its cost is bounded by the per-host attach limit, not by the number of tasks.
    var inMultiTransfers: [ObjectIdentifier: Transfer] = [:]
    static let scanInterval: UInt64 = 50_000_000  // 50 ms: timer resolution and progress floor
    /// The session's cookie store and its own cookies (CookieLayers.swift).
    let cookies: CookieLayers
    /// HSTS hosts learnt by this session and their file (SessionHSTS.swift).
    let hsts: SessionHSTS
    /// Where this session keeps partial downloads (PartialFileLock.swift); any thread.
    let partials: PartialDirectory
    /// The session's credential store and the configuration's credentials (SessionCredentials.swift).
    let auth: SessionCredentials
    /// Servers the session delegate trusted after a failed verification (ServerTrustExceptions.swift).
    let trustExceptions: ServerTrustExceptions
    /// Sets up each transfer's easy handle; holds the share handle and the trust store
    /// (EasyConfigurator.swift).
    let configurator: EasyConfigurator

    init(configuration: TransferConfiguration, sessionID: Int, cookieStorage: TransferCookieStorage,
         sessionCookies: TransferCookieStorage = TransferCookieStorage(), externalCookies: (any ExternalCookieStore)? = nil,
         timerClock: any EngineClock = MonotonicEngineClock()) {
        self.configuration = configuration
        slots = HostSlots(connectionsPerHost: configuration.httpMaximumConnectionsPerHost)
        partials = PartialDirectory(configuration)
        cookies = CookieLayers(shared: cookieStorage, own: sessionCookies, configuration: configuration, external: externalCookies)
        hsts = SessionHSTS(configuration: configuration, sessionID: sessionID)
        distantHosts = DistantHosts(wideningRTT: configuration.multiplexWideningRTT)
        trace = RequestTrace(configuration: configuration, sessionID: sessionID)
        downloads = DownloadFiles(configuration: configuration, sessionID: sessionID)
        trustExceptions = ServerTrustExceptions(configuration: configuration)
        configurator = EasyConfigurator(configuration: configuration, cookies: cookies, hsts: hsts, trace: trace,
                                        trustExceptions: trustExceptions)
        self.timerClock = timerClock
        self.sessionID = sessionID
        connectivity = ConnectivityRetry(enabled: configuration.waitsForConnectivity)
        recorder = TransactionRecorder(clock: clock, configuration: configuration)
        httpCache = CacheParticipation(configuration: configuration, clock: clock)
        auth = SessionCredentials(configuration: configuration)
        guard let m = MultiHandle() else { fatalError("libcurl could not create a multi handle (out of memory?)") }
        multi = m
        outbox = DeliveryOutbox(coalescingInterval: configuration.deliveryCoalescingInterval, multi: m)
        multi.setLong(CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.httpMaximumConnectionsPerHost))
        multi.setLong(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // libcurl keeps 4 idle connections per handle in the multi by default; while a long
        // list ramps up one start per turn, that closed connections just opened (37 new
        // connections for 5,000 requests to one host at 6 per host, instead of 6). The cache
        // is for every host of the session: 128 at 6 per host, as before DECISIONS 143 (tied
        // to the smaller per-host handle count it would close connections of lists that span
        // more than four hosts). Capped before multiplying: `4 * Int.max` would trap.
        multi.setLong(CURLMOPT_MAXCONNECTS, 16 * max(min(configuration.httpMaximumConnectionsPerHost, 1 << 20), 8))
    }

    /// Queues a command for the transfer thread. False when the engine has shut down. Only
    /// the command that finds the inbox empty wakes the loop (`CommandInbox.post`), and a
    /// start sent from a batch of this session's coalesced deliveries wakes it only once the
    /// batch is done (`DeliveryOutbox.defersWakeups`).
    func send(_ command: Command) -> Bool {
        startThreadIfNeeded()
        if case .start = command, outbox.defersWakeups {
            return multi.whileOpen {
                if inbox.post(command) { outbox.owesWakeup() }
                return false
            }
        }
        return multi.whileOpen { inbox.post(command) }
    }

    /// `send` for a closure that must not reach the engine weakly (DECISIONS 213): it holds the
    /// inbox and the multi handle. For a body stream's pump, whose transfer has already started
    /// the loop; a start posted through it would not start the thread.
    var poster: @Sendable (Command) -> Void {
        { [inbox, multi] command in _ = multi.whileOpen { inbox.post(command) } }
    }

    /// Stops the thread after tearing down every handle, and waits for it to finish.
    func shutdown() {
        let started = self.started.withLock { $0 }
        guard started else {
            multi.close()
            return
        }
        let done = DispatchSemaphore(value: 0)
        if multi.whileOpen({ _ = inbox.post(.shutdown(done)); return true }) { done.wait() }
    }

    private func startThreadIfNeeded() {
        let shouldStart = started.withLock { s -> Bool in
            if s { return false }
            s = true
            return true
        }
        guard shouldStart else { return }
        let name = Self.threadName(sessionID)
        let thread = Thread { [self] in
            // Foundation's `Thread.name` does not reach the kernel on Linux; this does.
            tk_set_thread_name(name)
            run()
        }
        thread.name = name
        thread.start()
    }

    /// Short enough for the kernel's 15-byte thread name (`top -H`, `/proc/.../comm`).
    static func threadName(_ sessionID: Int) -> String { "tk-sess-\(sessionID)" }

    // MARK: the loop

    private func run() {
        outbox.transferThread.store(pthread_self(), ordering: .relaxed)
        configurator.share = ShareHandle()
        hsts.load()
        while true {
            if case .shutdown(let done)? = inbox.runTurn(handle) {
                teardown()
                answerLeftovers()
                outbox.flush()  // what the last turn's commands delivered
                // A later thread may get this one's pthread_t: it must not be taken for the
                // transfer thread (its deliveries would wait in an outbox nobody flushes).
                outbox.transferThread.store(0, ordering: .relaxed)
                done.signal()
                return
            }
            var running: Int32 = 0
            _ = curl_multi_perform(multi.raw, &running)
            drainFinished()
            distantHosts.fillWidened(fillHost)  // outside libcurl's callbacks, where adding handles is allowed
            afterPerform()
            // The turn's delegate callbacks, in one hop (DECISIONS 136), unless they may wait
            // for more (DECISIONS 142): then the poll wakes in time to send them.
            var timeout = pollTimeoutMillis()
            if let held = outbox.flushUnlessHeld(transfersLeft: !transfers.isEmpty) { timeout = min(timeout, held) }
            // Commands waiting (a long list's next starts, one a turn): libcurl runs again at once,
            // without a poll that would return at once (a system call and a walk of every
            // handle's sockets per new transfer).
            guard timeout > 0 else { continue }
            var fds: Int32 = 0
            _ = curl_multi_poll(multi.raw, nil, 0, Int32(timeout), &fds)
        }
    }

    private func handle(_ command: Command) {
        switch command {
        case .start(let task, let requestedAt): start(task, requestedAt: requestedAt)
        case .suspend(let task): transfers[ObjectIdentifier(task)].map(suspend)
        case .resume(let task): transfers[ObjectIdentifier(task)].map(resume)
        case .cancel(let task, let rd, let reply): cancel(task, byProducingResumeData: rd, reply: reply)
        case .disposition(let task, let d): transfers[ObjectIdentifier(task)].map { applyDisposition($0, d) }
        case .redirect(let task, let r): transfers[ObjectIdentifier(task)].map { applyRedirectDecision($0, r) }
        case .challenge(let task, let d, let c): transfers[ObjectIdentifier(task)].map { applyChallengeAnswer($0, d, c) }
        case .trust(let task, let d): transfers[ObjectIdentifier(task)].map { applyTrustAnswer($0, d) }
        case .drained(let task): transfers[ObjectIdentifier(task)].map(drained)
        case .bodyStream(let task, let s): transfers[ObjectIdentifier(task)].map { bodyStreamArrived($0, s?.stream) }
        case .bodyReady(let task): transfers[ObjectIdentifier(task)].map(bodyReady)
        case .rateLimit(let task, let limit): setRateLimit(task, limit)
        case .sessionRateLimit(let limit): setSessionRateLimit(limit)
        case .connectionsPerHost(let n): setConnectionsPerHost(n)
        case .shutdown: break
        }
    }

    private func drainFinished() {
        var finished: [(Transfer, CURLcode)] = []
        var left: Int32 = 0
        while let msg = curl_multi_info_read(multi.raw, &left) {
            guard tk_msg_is_done(msg) == 1, let easy = tk_msg_easy(msg) else { continue }
            var ctx: UnsafeMutableRawPointer? = nil
            _ = tk_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &ctx)
            // Copy the result out before removing the handle: the message dies with it.
            if let ctx { finished.append((Transfer.from(ctx), tk_msg_result(msg))) }
        }
        for (t, code) in finished { hopFinished(t, code: code) }
    }

    /// Progress and coalesced data for the transfers that moved bytes in this iteration;
    /// every `scanInterval` a full pass over all transfers for timers. Thousands of tasks
    /// queued behind the per-host limit therefore cost nothing per iteration.
    private func afterPerform() {
        let now = timerNow
        for t in touched { publishProgress(t, now: now) }
        touched.removeAll(keepingCapacity: true)
        turn &+= 1
        // (A scan more than one interval away means the test clock went back: scan now.)
        guard now >= nextScan || nextScan - now > Self.scanInterval else { return }
        nextScan = now + Self.scanInterval
        var expired: [(Transfer, TransferError)] = []
        var next = UInt64.max
        var anyRunning = false
        // Only handles in the multi (bounded by the per-host attach limit); transfers queued in
        // the engine are not polled: each queue's head (it started first) stands for its queue
        // for the resource timeout, so a scan does not grow with the task count.
        // With priorities the head is the highest, not the oldest: a lower one's resource
        // timeout is checked once it reaches the multi (DECISIONS 65).
        for t in inMultiTransfers.values {
            anyRunning = anyRunning || t.flow.isRunning
            publishProgress(t, now: now)
            if t.dequeuedAt != nil && t.firstHeaderAt == nil { recorder.updateLivePhase(t) }
            guard let d = deadlines(t) else { continue }
            if let e = expiredTimer(t, d, now: now) { expired.append((t, e)) }
            next = min(next, d.idle ?? .max, d.resource)
        }
        for head in slots.queueHeads {
            guard transfers[ObjectIdentifier(head.task)] === head else { continue }
            anyRunning = anyRunning || head.flow.isRunning
            guard let d = deadlines(head) else { continue }
            if let e = expiredTimer(head, d, now: now) { expired.append((head, e)) }
            next = min(next, d.resource)
        }
        if !connectivity.waiters.isEmpty { next = min(next, retryConnectivityWaiters(now: now)) }
        nextDeadline = next
        allSuspended = !anyRunning
        // Suspends, resumes and new connections since the last scan change the shares.
        rebalanceRates()
        releaseRatePauses(now: Monotonic.now(), timerNow: now)
        for (t, e) in expired {
            recorder.recordInterruptedHop(t, e)
            detach(t)
            finishKeepingResumeData(t, error: e)
        }
        timerClock.timerScanFinished()
    }

    /// Sleep until the next timer scan or deadline; an idle engine sleeps long (a wakeup ends
    /// any sleep at once).
    private func pollTimeoutMillis() -> Int {
        if inbox.hasBacklog { return 0 }
        if transfers.isEmpty { return 60_000 }
        let now = timerNow
        let until = min(nextScan, nextDeadline)
        // Only suspended transfers: wake rarely (the flag is from the last scan, ≤ 50 ms old,
        // and any command wakes the loop at once anyway).
        let cap = allSuspended ? 1_000 : 100
        return max(1, min(cap, Int((until > now ? until - now : 0) / 1_000_000) + 1))
    }

    /// Commands that came after the shutdown are not run. The session shuts down only when it
    /// has no live task, so they are about finished tasks; a cancel's resume-data handler is
    /// still called, with nil, as for a finished task.
    private func answerLeftovers() {
        for case .cancel(let task, _, let reply?) in inbox.takeLeftovers() {
            task.session.deliver(awaited: true) { reply(nil) }
        }
    }

    private func teardown() {
        slots.removeAllWaiting()
        connectivity.removeAll()
        for t in transfers.values { detach(t) }
        transfers.removeAll()
        hsts.save()
        spareHandles.removeAll()
        configurator.share = nil
        multi.close()
        configurator.trustStore = nil
    }

    // MARK: adding and removing handles (Machines/HostSlots.swift)

    /// Hands a transfer to libcurl, or queues it in the engine when its host has no room.
    func attach(_ t: Transfer) {
        guard t.flow.isDetached else { return }
        // Made with the hop's handle (EasyConfigurator.makeEasy); built here only for a hop
        // that was given none.
        let key = t.hostKey ?? HostSlots<Transfer>.key(t.request.url)
        t.hostKey = key
        guard slots.admit(t, key: key, priority: t.task.priority, defaultPriority: TransferTask.defaultPriority,
                          distant: distantHosts.contains(key)) else {
            t.flow.queued()
            return
        }
        let rc = curl_multi_add_handle(multi.raw, t.easy.raw)
        if rc == CURLM_OK {
            t.flow.attached()
            inMultiTransfers[ObjectIdentifier(t)] = t
            slots.attached(key)
            if t.ownRateLimit > 0 { ratesInUse = true }
            rebalanceRates()
        } else {
            // Never dropped in silence: a task whose handle libcurl refused (out of memory, or
            // a call from inside one of its callbacks, CURLM_RECURSIVE_API_CALL) fails.
            finish(t, error: TransferError(.unknown, "libcurl refused the transfer (curl_multi_add_handle: \(String(cString: curl_multi_strerror(rc))))"))
        }
    }

    func detach(_ t: Transfer) {
        guard t.flow.isInMulti else { return }
        curl_multi_remove_handle(multi.raw, t.easy.raw)
        let actions = t.flow.detached()
        inMultiTransfers.removeValue(forKey: ObjectIdentifier(t))
        guard let key = t.hostKey else { return }
        perform(actions, t)
        slots.detached(key)
        promoteWaiting(key)
        rebalanceRates()
    }

    /// A connected transfer was suspended: it keeps its handle but not its host's slot.
    func releaseSlot(_ t: Transfer) {
        guard let key = t.hostKey else { return }
        slots.release(key)
        promoteWaiting(key)
    }

    /// Resumed or detached: it counts against its host again (resumed, the host may briefly
    /// hold one more handle than its limit).
    func retakeSlot(_ t: Transfer) {
        if let key = t.hostKey { slots.retake(key) }
    }

    /// Attaches waiting transfers of `key` while it has room (its limit just grew).
    func fillHost(_ key: String) {
        // Each promotion takes at least one transfer off the queue: this ends.
        while slots.hasRoom(key, distant: distantHosts.contains(key)), slots.hasWaiting(key) { promoteWaiting(key) }
    }

    /// Moves the next still-wanted transfer of this host from the engine's queue to libcurl.
    private func promoteWaiting(_ key: String) {
        while let next = slots.nextWaiting(key, distant: distantHosts.contains(key)) {
            next.flow.leftQueue()
            // Finished, cancelled or suspended meanwhile: drop it (resume re-queues it).
            guard transfers[ObjectIdentifier(next.task)] === next, next.flow.isRunning else { continue }
            attach(next)
            // Refused by libcurl, it failed its task and left the slot free: the next one
            // takes it, or a host with no handle left would never start its queue.
            if !next.flow.isDetached { return }
        }
    }
}
