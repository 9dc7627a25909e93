import CCurl
import Foundation
import Synchronization

/// The transfer thread of one session: owns its libcurl multi handle, share handle and every
/// easy handle, and is driven by a command queue plus `curl_multi_wakeup`.
///
/// Loop: drain commands → `curl_multi_perform` → read finished transfers → publish progress,
/// flush data, fire the engine's own timers → `curl_multi_poll` until the next deadline or a
/// wakeup. An idle session sleeps in poll and uses no CPU.
final class TransferEngine: @unchecked Sendable {
    // @unchecked: `inbox` and `thread` are behind locks; every other mutable field is
    // touched only on the transfer thread (set up in `run`, torn down before it returns).

    enum Command: Sendable {
        /// `requestedAt`: when `resume()` asked for it, the task's fetch start (`Monotonic`).
        case start(TransferTask, requestedAt: UInt64)
        case suspend(TransferTask)
        case resume(TransferTask)
        case cancel(TransferTask, byProducingResumeData: Bool, reply: (@Sendable (Data?) -> Void)?)
        case disposition(TransferTask, ResponseDisposition)
        case redirect(TransferTask, TransferRequest?)
        /// The task delegate's answer to an authentication challenge.
        case challenge(TransferTask, AuthChallengeDisposition, TransferCredential?)
        /// The session delegate's answer to a server-trust challenge.
        case trust(TransferTask, AuthChallengeDisposition)
        /// The data delegate caught up: unpause a transfer paused for back-pressure.
        case drained(TransferTask)
        /// The delegate's answer to `needNewBodyStream` (nil: none).
        case bodyStream(TransferTask, SendableStream?)
        /// A streamed body has bytes again.
        case bodyReady(TransferTask)
        case shutdown(DispatchSemaphore)

        var task: TransferTask? {
            switch self {
            case .start(let t, _), .suspend(let t), .resume(let t), .cancel(let t, _, _),
                 .disposition(let t, _), .redirect(let t, _), .challenge(let t, _, _), .trust(let t, _),
                 .drained(let t), .bodyStream(let t, _),
                 .bodyReady(let t): return t
            case .shutdown: return nil
            }
        }
    }

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
    private let inbox = Locked<[Command]>([])
    /// The loop swaps this with the inbox, so neither array is reallocated per iteration.
    private var commandBuffer: [Command] = []
    /// The next command of `commandBuffer` to run.
    private var commandCursor = 0
    /// New transfers set up per loop turn (`runCommands`): one. With 8, the first connects of
    /// a 5,000-URL run measured 0.25-1.7 ms (curl: 0.15-0.25 ms); with 1, 0.04-0.3 ms, at the
    /// same wall time (release build, nginx on loopback).
    static let startsPerTurn = 1
    private let started = Locked(false)

    /// The transfer thread's `pthread_self()` once it runs (0 before): `isTransferThread`.
    let transferThread = Atomic<UInt>(0)
    /// How many times the outbox went to the delegate queue: tests prove with it that
    /// callbacks were held (`deliveryCoalescingInterval`), not only that none was lost.
    let outboxFlushes = Atomic<Int>(0)
    // Transfer-thread state.
    /// Delegate-queue work of this loop turn and its queue (TransferEngine+Outbox.swift).
    var outbox: [@Sendable () -> Void] = []
    var outboxQueue: DispatchQueue?
    /// A block in the outbox is waited for (`deliver(awaited:)`): the outbox goes this turn.
    var outboxAwaited = false
    /// When the outbox's oldest block was queued (`Monotonic`; kept only while coalescing).
    var outboxSince: UInt64 = 0
    /// The configuration's `deliveryCoalescingInterval` (TransferEngine+Outbox.swift).
    let coalescingNanos: UInt64
    var share: ShareHandle?
    let spareHandles = SpareHandles()
    var transfers: [ObjectIdentifier: Transfer] = [:]
    /// Transfers whose callbacks ran since the last `afterPerform`.
    var touched: [Transfer] = []
    /// Counts `afterPerform` calls: a transfer touched in this turn has this number.
    var turn: UInt64 = 1
    var nextScan: UInt64 = 0
    var nextDeadline: UInt64 = .max
    var allSuspended = false
    /// Transfers waiting in the engine for a place in the multi, per host: highest
    /// `priority` first, FIFO among equals (O(1) when no task sets a priority).
    var waiting: [String: PriorityFIFO<Transfer>] = [:]
    /// Hosts that have had a task with a priority of its own: their tasks wait here at the
    /// connection limit itself, since libcurl's own queue ignores priority (DECISIONS 65).
    var prioritizedHosts: Set<String> = []
    /// Transfers pausing before another connection attempt (`waitsForConnectivity`).
    var connectivityWaiters: [ObjectIdentifier: Transfer] = [:]
    var attachedPerHost: [String: Int] = [:]
    /// Per host: suspended connected transfers whose handles stay in the multi (`releaseSlot`).
    var releasedPerHost: [String: Int] = [:]
    /// Hosts whose HTTP/2 connection is far enough to need more streams (`noteRoundTrip`).
    var distantMultiplexedHosts: Set<String> = []
    /// Hosts whose round trip was read already (once per host and session).
    var measuredHosts: Set<String> = []
    /// Hosts just widened, whose waiting transfers start after this perform (`fillWidenedHosts`).
    var widenedHosts: [String] = []
    /// The transfers whose handles are in the multi: the only ones the timer scan visits, so
    /// its cost is bounded by the per-host attach limit, not by the number of tasks.
    var inMultiTransfers: [ObjectIdentifier: Transfer] = [:]
    static let scanInterval: UInt64 = 50_000_000  // 50 ms: timer resolution and progress floor
    /// The session's cookie store (thread-safe; shared with other default sessions).
    let cookieStorage: TransferCookieStorage
    /// This session's own cookies, in memory (DECISIONS 109): its `cookieFiles` (curl's `-b
    /// FILE`) and what servers set during the session; never written to the shared store.
    let sessionCookies: TransferCookieStorage
    /// HSTS hosts learnt by this session (TransferEngine+HSTS.swift), and whether they changed.
    var hsts = HSTSStore()
    var hstsChanged = false
    /// The partial directory, made on first use (read from any thread, hence the lock).
    let partialDirectoryCache = Locked<String?>(nil)
    /// The session's credentials: the configuration's store, else by kind (DECISIONS 89).
    lazy var credentials: CredentialStore = configuration.credentialStore
        ?? (configuration.kind == .ephemeral ? CredentialStore() : .shared(stateDirectory: configuration.stateDirectory))
    /// Servers the session delegate trusted after a failed verification: "host:port" → the
    /// leaf's `sha256//` pin (TransferEngine+ServerTrust.swift).
    var trustExceptions: [String: String] = [:]
    /// Loaded on the transfer thread when the first https request is set up: its cost is in
    /// that request's queue time, never in a network phase.
    lazy var trustStore: TrustStore? = TrustStore(extraCAFile: configuration.additionalTrustedCAFile,
                                                  system: configuration.systemTrustLocations)

    init(configuration: TransferConfiguration, sessionID: Int, cookieStorage: TransferCookieStorage,
         sessionCookies: TransferCookieStorage = TransferCookieStorage(), timerClock: any EngineClock = MonotonicEngineClock()) {
        self.configuration = configuration
        self.timerClock = timerClock
        self.cookieStorage = cookieStorage
        self.sessionCookies = sessionCookies
        self.sessionID = sessionID
        coalescingNanos = Self.coalescingNanos(configuration.deliveryCoalescingInterval)
        guard let m = MultiHandle() else { fatalError("libcurl could not create a multi handle (out of memory?)") }
        multi = m
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

    /// Queues a command for the transfer thread. False when the engine has shut down.
    ///
    /// Only the command that finds the inbox empty wakes the loop: a non-empty inbox already
    /// had its wakeup, and the loop does not sleep while the inbox holds commands
    /// (`hasCommandBacklog`). One wakeup per command was a `send` and a `recv` on libcurl's
    /// socket pair per URL of a long list.
    func send(_ command: Command) -> Bool {
        startThreadIfNeeded()
        return multi.whileOpen {
            inbox.withLock { inbox in
                inbox.append(command)
                return inbox.count == 1
            }
        }
    }

    /// Stops the thread after tearing down every handle, and waits for it to finish.
    func shutdown() {
        let started = self.started.withLock { $0 }
        guard started else {
            multi.close()
            return
        }
        let done = DispatchSemaphore(value: 0)
        if multi.whileOpen({ inbox.withLock { $0.append(.shutdown(done)); return true } }) { done.wait() }
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
        transferThread.store(pthread_self(), ordering: .relaxed)
        share = ShareHandle()
        loadHSTS()
        while true {
            if case .shutdown(let done)? = runCommands() {
                teardown()
                flushOutbox()  // what the last turn's commands delivered
                // A later thread may get this one's pthread_t: it must not be taken for the
                // transfer thread (its deliveries would wait in an outbox nobody flushes).
                transferThread.store(0, ordering: .relaxed)
                done.signal()
                return
            }
            var running: Int32 = 0
            _ = curl_multi_perform(multi.raw, &running)
            drainFinished()
            fillWidenedHosts()  // outside libcurl's callbacks, where adding handles is allowed
            afterPerform()
            // The turn's delegate callbacks, in one hop (DECISIONS 136), unless they may wait
            // for more (DECISIONS 142): then the poll wakes in time to send them.
            var timeout = pollTimeoutMillis()
            if let held = flushOutboxUnlessHeld() { timeout = min(timeout, held) }
            var fds: Int32 = 0
            _ = curl_multi_poll(multi.raw, nil, 0, Int32(timeout), &fds)
        }
    }

    /// Runs the commands that arrived, in order, but sets up at most `startsPerTurn` new
    /// transfers before libcurl runs again: the rest wait for the next turn, which then polls
    /// without sleeping. Setting up a few thousand handles in one turn (a long URL list) held
    /// up the connections already being made, and libcurl counted that wait into their connect
    /// and TLS phases.
    /// Returns the shutdown command when one is reached.
    private func runCommands() -> Command? {
        if commandCursor == commandBuffer.count {
            commandBuffer.removeAll(keepingCapacity: true)
            commandCursor = 0
            // Swapped, not copied: copying and then emptying the inbox allocated a new array
            // on every iteration.
            inbox.withLock { swap(&$0, &commandBuffer) }
        }
        var starts = 0
        while commandCursor < commandBuffer.count {
            let command = commandBuffer[commandCursor]
            if case .start = command {
                if starts == Self.startsPerTurn { break }
                starts += 1
            }
            commandCursor += 1
            if case .shutdown = command { return command }
            handle(command)
        }
        return nil
    }

    /// Commands waiting: taken from the inbox but not yet run (a long list of starts, see
    /// `runCommands`), or still in the inbox. The inbox counts because a poll during a backlog
    /// consumes the wakeup that came with its commands: without it the loop then slept up to
    /// 60 s with work waiting (seen once in four 5,000-URL runs).
    var hasCommandBacklog: Bool {
        commandCursor < commandBuffer.count || inbox.withLock { !$0.isEmpty }
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
            if t.dequeuedAt != nil && t.firstHeaderAt == nil { updateLivePhase(t) }
            guard let d = deadlines(t) else { continue }
            if let e = expiredTimer(t, d, now: now) { expired.append((t, e)) }
            next = min(next, d.idle ?? .max, d.resource)
        }
        for queue in waiting.values {
            guard let head = queue.first, transfers[ObjectIdentifier(head.task)] === head else { continue }
            anyRunning = anyRunning || head.flow.isRunning
            guard let d = deadlines(head) else { continue }
            if let e = expiredTimer(head, d, now: now) { expired.append((head, e)) }
            next = min(next, d.resource)
        }
        if !connectivityWaiters.isEmpty { next = min(next, retryConnectivityWaiters(now: now)) }
        nextDeadline = next
        allSuspended = !anyRunning
        for (t, e) in expired {
            recordInterruptedHop(t, e)
            detach(t)
            finishKeepingResumeData(t, error: e)
        }
        timerClock.timerScanFinished()
    }

    /// Sleep until the next timer scan or deadline; an idle engine sleeps long (a wakeup ends
    /// any sleep at once).
    private func pollTimeoutMillis() -> Int {
        if hasCommandBacklog { return 0 }
        if transfers.isEmpty { return 60_000 }
        let now = timerNow
        let until = min(nextScan, nextDeadline)
        // Only suspended transfers: wake rarely (the flag is from the last scan, ≤ 50 ms old,
        // and any command wakes the loop at once anyway).
        let cap = allSuspended ? 1_000 : 100
        return max(1, min(cap, Int((until > now ? until - now : 0) / 1_000_000) + 1))
    }

    private func teardown() {
        waiting.removeAll()
        connectivityWaiters.removeAll()
        for t in transfers.values { detach(t) }
        transfers.removeAll()
        saveHSTS()
        spareHandles.removeAll()
        share = nil
        multi.close()
        trustStore = nil
    }

    // MARK: adding and removing handles

    /// Hands a transfer to libcurl, or queues it in the engine when its host already has
    /// `attachLimit` handles in the multi. libcurl 7.88 walks every easy handle in the multi on
    /// each `curl_multi_perform`, including those parked behind its per-host connection limit,
    /// so thousands of queued tasks must wait here instead.
    func attach(_ t: Transfer) {
        guard t.flow.isDetached else { return }
        // Built once per hop (the string was 1 % of a small-file run when built per attach).
        let key = t.hostKey ?? Self.hostKey(t.request.url)
        t.hostKey = key
        let priority = t.task.priority
        if priority != TransferTask.defaultPriority { prioritizedHosts.insert(key) }
        if slotsInUse(key) >= hostLimit(key) {
            t.flow.queued()
            waiting[key, default: PriorityFIFO()].push(t, priority: priority)
            return
        }
        let rc = curl_multi_add_handle(multi.raw, t.easy.raw)
        if rc == CURLM_OK {
            t.flow.attached()
            inMultiTransfers[ObjectIdentifier(t)] = t
            t.hostKey = key
            attachedPerHost[key, default: 0] += 1
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
        attachedPerHost[key, default: 1] -= 1
        promoteWaiting(key)
    }

    /// Handles of this host in the multi that count against its limit.
    func slotsInUse(_ key: String) -> Int { attachedPerHost[key, default: 0] - releasedPerHost[key, default: 0] }

    /// A connected transfer was suspended: it keeps its handle (and its connection or stream)
    /// but no longer its host's slot, so six suspended tasks do not stop the rest of the host
    /// (with one handle per connection, DECISIONS 143).
    func releaseSlot(_ t: Transfer) {
        guard let key = t.hostKey else { return }
        releasedPerHost[key, default: 0] += 1
        promoteWaiting(key)
    }

    /// Resumed or detached: the transfer counts against its host again (resumed, the host may
    /// briefly hold one more handle than its limit).
    func retakeSlot(_ t: Transfer) {
        guard let key = t.hostKey else { return }
        releasedPerHost[key, default: 1] -= 1
    }

    /// Attaches waiting transfers of `key` while it has free slots (its limit just grew).
    func fillHost(_ key: String) {
        // Each promotion takes at least one transfer off the queue: this ends.
        while slotsInUse(key) < hostLimit(key), waiting[key]?.isEmpty == false { promoteWaiting(key) }
    }

    /// Moves the next still-wanted transfer of this host from the engine's queue to libcurl.
    private func promoteWaiting(_ key: String) {
        // A host that became prioritized may still be above its new limit: popping now would
        // only push the task back, behind its equals.
        guard slotsInUse(key) < hostLimit(key) else { return }
        // Popped in place: copying the queue out of the dictionary would retain every element.
        while let next = waiting[key]?.pop() {
            next.flow.leftQueue()
            // Finished, cancelled or suspended meanwhile: drop it (resume re-queues it).
            guard transfers[ObjectIdentifier(next.task)] === next, next.flow.isRunning else { continue }
            attach(next)
            // Refused by libcurl, it failed its task and left the slot free: the next one
            // takes it, or a host with no handle left would never start its queue (review).
            if !next.flow.isDetached { return }
        }
    }

    /// Handles per host in the multi: one per connection, and at least `minimumAttached`, so
    /// HTTP/2 multiplexes even on a session limited to one connection. No more: libcurl 7.88
    /// walks every handle in the multi on each perform, parked ones too, and a freed
    /// connection gets the next handle in the same turn anyway (`detach`). With 32 per host
    /// (the limit until DECISIONS 143), 5,000 small files over HTTP/2 took 10-20 % more CPU
    /// and wall time than with 6 streams, as `curl --parallel-max 6` runs them.
    var attachLimit: Int { max(configuration.httpMaximumConnectionsPerHost, Self.minimumAttached) }
    static let minimumAttached = 6
    /// Handles per host in the multi for a host with prioritized tasks: one per connection,
    /// so every task beyond them waits in the engine's priority order.
    var connectionLimit: Int { max(1, configuration.httpMaximumConnectionsPerHost) }

    func hostLimit(_ key: String) -> Int {
        if !prioritizedHosts.isEmpty, prioritizedHosts.contains(key) { return connectionLimit }
        return distantMultiplexedHosts.contains(key) ? multiplexLimit : attachLimit
    }

    /// Streams per host once its HTTP/2 connection has a round trip of at least
    /// `multiplexWideningRTT`: the limit before DECISIONS 143. Over a real network the number
    /// in flight sets the speed (5,000 small files at 50 ms: about 42 s with 6 streams, 8 s
    /// with 32; found in review), where on loopback more streams only cost CPU.
    var multiplexLimit: Int { max(4 * min(configuration.httpMaximumConnectionsPerHost, 1 << 20), 32) }

    static func hostKey(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
    }
}
