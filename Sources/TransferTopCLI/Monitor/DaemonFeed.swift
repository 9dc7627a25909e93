import BackgroundWire
import Foundation
import Synchronization
import TransferKit
import TransferTopDaemon
import TransferTopUI

/// The monitor's view of the daemon (DECISIONS 128): a thread of its own holds a
/// `watch` connection and keeps the latest status; the UI loop takes it each frame with
/// `snapshots()`, as it takes the runner's, and never waits on the socket. Keys on background
/// rows become `control` requests on a queue of their own; their answers come back as notices
/// for the status line. The feed's thread also converts each picture into snapshots, so the UI
/// thread only takes them. When the daemon goes away the rows keep their last state, marked
/// "daemon gone", and the thread connects again each second until one answers; a daemon that
/// refuses the watch (an unknown session, a journal it cannot read, another version) is said
/// once and asked again less and less often, up to every 30 s.
public final class DaemonFeed: @unchecked Sendable {
    // @unchecked: mutable state is behind `shared` (a lock) and `converter` (the feed thread's).
    /// This user's daemon, or another host's through ssh (`attach ssh://…`).
    let endpoint: DaemonEndpoint
    let environment: [String: String]
    /// `attach NAME`: only that session; nil: every background session.
    let session: String?

    struct Shared {
        var sessions: [SessionSnapshot] = []
        var events: [TransferEvent] = []
        var names: [Int: String] = [:]
        var connected = false
        var everConnected = false
        /// The connection that showed the rows ended without a refusal: "daemon gone".
        var gone = false
        var notices: [String] = []
        /// Key requests not yet answered, and failures of keys the UI has not taken (printed at stop).
        var keysPending = 0
        var keyFailures: [String] = []
        var channel: LineChannel?
        var stopped = false
        var controlClient: DaemonClient?
        /// The caller's connection, used by the first watch (`init(…connected:)`).
        var handedOver: DaemonClient?
        /// Session limits this monitor set and the daemon took (`control … limit|connections`),
        /// shown until a picture carries the session's own (a daemon that keeps them does,
        /// DECISIONS 211; an earlier one never does, DECISIONS 178).
        var limits: [String: (perHost: Int?, rate: Int64?)] = [:]
    }

    private let shared = Locked(Shared())
    private let wake = NSCondition()
    private let keys = DispatchQueue(label: "transfertop.monitor.daemon-keys")
    /// The feed thread's: names, ids, first sightings and last states of the rows.
    private var converter = DaemonSnapshots()
    /// This feed's first session id, and its host's name among several (nil: the only feed).
    let base: Int
    let hostLabel: String?

    /// Whether a session id is one of this daemon's (`DaemonRows.sessionsPerHost` from `base`).
    func owns(_ sessionID: Int) -> Bool { (base..<base + DaemonRows.sessionsPerHost).contains(sessionID) }

    /// `connected`: a client the caller already has (`attach` checked the session with it,
    /// before the terminal was taken, where ssh could ask for a password): the first watch
    /// uses it. Later connections may not prompt (`interactive: false`).
    /// `host`: the feed's place among several (`attach ssh://a ssh://b`): its sessions' ids
    /// start at its own base and their names at `label`, and its notices say `label` first.
    init(endpoint: DaemonEndpoint, session: String?, environment: [String: String], connected: DaemonClient? = nil,
         host: (index: Int, label: String)? = nil) {
        (self.endpoint, self.session, self.environment) = (endpoint, session, environment)
        base = DaemonRows.firstSessionID + (host?.index ?? 0) * DaemonRows.sessionsPerHost
        hostLabel = host?.label
        converter.base = base
        converter.label = host.map { $0.label + "/" } ?? ""
        shared.withLock { $0.handedOver = connected }
    }

    convenience init(paths: DaemonPaths, session: String?) { self.init(endpoint: .local(paths), session: session, environment: [:]) }

    /// The feed of a local run's monitor: nil without HOME and XDG_STATE_HOME; it starts no
    /// daemon and creates no directory (DECISIONS 128).
    public static func standard(_ env: [String: String]) -> DaemonFeed? {
        DaemonPaths.located(env).map { DaemonFeed(paths: $0, session: nil) }
    }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "transfertop.monitor.daemon"
        thread.start()
    }

    /// Ends the watch; the thread exits at its next look (its connection is shut down now).
    /// Called once the terminal is restored: a key confirmed just before `q` is still sent
    /// (waiting at most `keysWait` seconds) and a failure of it is printed, not lost.
    func stop(keysWait: Double = 2) {
        let channel = shared.withLock { s -> LineChannel? in s.stopped = true; return s.channel }
        channel?.shutdown()
        wake.lock(); wake.broadcast(); wake.unlock()
        let drained = DispatchSemaphore(value: 0)
        keys.async { drained.signal() }
        let done = drained.wait(timeout: .now() + keysWait) == .success
        let (failures, pending) = shared.withLock { s in
            defer { s.keyFailures = [] }
            return (s.keyFailures, s.keysPending)
        }
        for f in failures { FileHandle.standardError.write(Data("transfertop: \(f)\n".utf8)) }
        if !done, pending > 0 {
            FileHandle.standardError.write(Data("transfertop: \(pending) key request(s) to the daemon not answered within \(Int(keysWait)) s; 'transfertop status' shows what the daemon did\n".utf8))
        }
    }

    // MARK: the UI thread's side

    /// The latest picture as snapshots (converted by the feed's thread when it came).
    func snapshots(now: Date) -> [SessionSnapshot] {
        shared.withLock { s in
            guard !s.limits.isEmpty else { return s.sessions }
            return s.sessions.map { session in
                // Limits are kept by the daemon's name of the session, not the shown one.
                guard let name = s.names[session.id], let set = s.limits[name] else { return session }
                var shown = session
                if let n = set.perHost { shown.maxConnectionsPerHost = n }
                if let r = set.rate { shown.rateLimit = r }
                shown.limitsChanged = true
                return shown
            }
        }
    }

    /// State changes seen between pictures, for the event log (UI thread).
    func takeEvents() -> [TransferEvent] { shared.withLock { s in defer { s.events = [] }; return s.events } }

    var isGone: Bool { shared.withLock { $0.gone } }

    /// The session ids of the last picture (the rows a "daemon gone" applies to).
    var sessionIDs: Set<Int> { shared.withLock { Set($0.names.keys) } }

    /// Notices since the last call; the key failures among them count as shown.
    func takeNotices() -> [String] {
        shared.withLock { s in
            defer { (s.notices, s.keyFailures) = ([], []) }
            return s.notices
        }
    }

    private func name(of id: Int) -> String? { shared.withLock { $0.names[id] } }

    /// What a key on a background row asks of the daemon, sent off the UI thread; nil for an
    /// effect that is not on the daemon's rows. Returns the status line's text meanwhile.
    func route(_ effect: Effect) -> String? {
        func task(_ id: TaskID, _ action: BackgroundAction) -> String? {
            guard owns(id.session) else { return nil }
            guard let name = name(of: id.session) else { return "no background session for \(id)" }
            send(name, Int64(id.task), action)
            return "asking the daemon: \(action.rawValue) \(name):\(id.task)…"
        }
        switch effect {
        case .suspend(let id): return task(id, .suspend)
        case .resume(let id): return task(id, .resume)
        case .cancel(let id): return task(id, .cancel)
        case .cancelWithResumeData(let id): return task(id, .cancelWithResumeData)
        case .resumeFromResumeData(let id):
            return owns(id.session) ? "the daemon cannot continue a task from resume data" : nil
        case .invalidateAndCancel(let sid):
            guard owns(sid) else { return nil }
            guard let name = name(of: sid) else { return "no background session \(sid)" }
            send(name, nil, .invalidate)
            return "asking the daemon: invalidate \(name)…"
        case .retry(let id):
            return change(id.session, Int64(id.task), .retry)
        case .limitTask(let id, let rate):
            return change(id.session, Int64(id.task), .rateLimit(rate))
        case .limitSession(let sid, let rate):
            return change(sid, nil, .rateLimit(rate))
        case .connectionsPerHost(let sid, let n):
            return change(sid, nil, .connectionsPerHost(n))
        case .finishAndInvalidate(let sid), .newTask(_, let sid):
            return owns(sid) ? "the daemon cannot do that; see ? (Background sessions)" : nil
        default:
            return nil
        }
    }

    /// `a`, `l`, `L`, `+` and `-` on a background row: `control … retry|limit|connections`.
    private func change(_ sid: Int, _ task: Int64?, _ change: BackgroundChange) -> String? {
        guard owns(sid) else { return nil }
        guard let name = name(of: sid) else { return "no background session \(sid)" }
        send(name, task, request: .change(session: name, task: task, change: change))
        return "asking the daemon: \(task.map { "\(name):\($0)" } ?? name)…"
    }

    private func send(_ name: String, _ task: Int64?, _ action: BackgroundAction) {
        send(name, task, request: .control(session: name, task: task, action: action))
    }

    private func send(_ name: String, _ task: Int64?, request: DaemonRequest) {
        shared.withLock { $0.keysPending += 1 }
        keys.async { [self] in
            defer { shared.withLock { $0.keysPending -= 1 } }
            let label = task.map { "\(name):\($0)" } ?? name
            do throws(DaemonError) {
                let client: DaemonClient
                if let kept = shared.withLock({ $0.controlClient }) { client = kept } else {
                    client = try endpoint.connect(start: false, environment: environment, interactive: false)
                    shared.withLock { $0.controlClient = client }
                }
                let reply = try client.request(request)
                if case .ok(let text) = reply {
                    note("daemon, \(label): \(text)")
                    if case .change(_, nil, let change) = request { taken(change, for: name) }
                }
            } catch {
                // A refusal and a daemon gone look alike here: the next key connects afresh.
                let text = said("daemon, \(label): \(error.message)")
                shared.withLock { s in
                    s.controlClient = nil
                    s.notices.append(text)
                    s.keyFailures.append(text)
                }
            }
        }
    }

    /// A session limit the daemon took, for `snapshots(now:)`.
    private func taken(_ change: BackgroundChange, for name: String) {
        shared.withLock { s in
            switch change {
            case .connectionsPerHost(let n): s.limits[name, default: (nil, nil)].perHost = n
            case .rateLimit(let r): s.limits[name, default: (nil, nil)].rate = r
            case .retry: break
            }
        }
    }

    private func note(_ text: String) {
        shared.withLock { $0.notices.append(said(text)) }
    }

    /// A notice as the status line shows it: the host first when there are several.
    private func said(_ text: String) -> String { hostLabel.map { "\($0): \(text)" } ?? text }

    // MARK: the feed's thread

    /// A picture from the daemon, converted here (off the UI thread) and handed over.
    func received(_ statuses: [BackgroundSessionStatus]) {
        let sessions = converter.sessions(statuses, now: Date())
        let events = converter.takeEvents()
        let names = Dictionary(converter.ids.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        shared.withLock { s in
            // An earlier daemon back after it went away runs without the limits it took (it
            // did not journal them): the header no longer shows them. A daemon that keeps them
            // says what they are, whoever set them: its picture is the one shown.
            if s.gone { s.limits = [:] }
            for st in statuses where st.connectionsKept != nil { s.limits[st.name] = nil }
            (s.sessions, s.names, s.connected, s.everConnected, s.gone) = (sessions, names, true, true, false)
            s.events += events
        }
    }

    /// A `.progress` reply: the byte counts of running tasks, into the last picture.
    static func apply(_ moved: [BackgroundTaskProgress], to statuses: inout [BackgroundSessionStatus]) {
        let sessions = Dictionary(statuses.indices.map { (statuses[$0].name, $0) }, uniquingKeysWith: { a, _ in a })
        for p in moved {
            guard let si = sessions[p.session], let i = place(of: p.number, in: statuses[si].tasks) else { continue }
            statuses[si].tasks[i].bytesReceived = p.bytesReceived
            if let e = p.bytesExpected { statuses[si].tasks[i].bytesExpected = e }
        }
    }

    /// Tasks are by number, so a task's place is found by halving (no copy of the array is
    /// kept, so the caller's write does not copy ten thousand tasks).
    static func place(of number: Int64, in tasks: [BackgroundTaskStatus]) -> Int? {
        var (lo, hi) = (0, tasks.count)
        while lo < hi {
            let mid = (lo + hi) / 2
            if tasks[mid].number < number { lo = mid + 1 } else { hi = mid }
        }
        return lo < tasks.count && tasks[lo].number == number ? lo : nil
    }

    /// Why a watch ended: the daemon answered `.failure` (it runs, but will not serve this
    /// watch) or anything else (no daemon, the connection dropped).
    private struct Refused: Error { var why: String }

    private func loop() {
        var lastFailure: String?
        var pause = 1.0
        while !shared.withLock({ $0.stopped }) {
            var (refused, watching) = (false, false)
            do {
                if case .local(let paths) = endpoint, !paths.runtimeDirectoryIsOurs { throw DaemonError("no transfertop daemon is running") }
                let given = shared.withLock { s -> DaemonClient? in defer { s.handedOver = nil }; return s.handedOver }
                let client = try given ?? endpoint.connect(start: false, environment: environment, interactive: false)
                let back = shared.withLock { s -> Bool in
                    s.channel = client.channel
                    return s.gone && !s.stopped
                }
                if shared.withLock({ $0.stopped }) { client.channel.shutdown() }
                try client.channel.send(DaemonRequest.watch(session: session))
                watching = true
                var first = true
                var statuses: [BackgroundSessionStatus] = []
                while let reply = try client.channel.receive(DaemonReply.self) {
                    switch reply {
                    case .status(let whole):
                        statuses = whole
                        received(statuses)
                        if first, back { note("the daemon is back (pid \(client.daemonPID))") }
                        (first, lastFailure, pause) = (false, nil, 1)
                    case .progress(let moved):
                        Self.apply(moved, to: &statuses)
                        received(statuses)
                    case .failure(let why):
                        // The watch ended (an unknown session, an unreadable journal): this
                        // connection serves no more, and the daemon still runs.
                        client.channel.shutdown()
                        throw Refused(why: why)
                    default:
                        continue
                    }
                }
            } catch {
                // No daemon is a local run's usual case and goes unsaid; anything else (version
                // skew, an unknown session) is said once, not at every look, and looked at again
                // less and less often.
                // A connection that drops while watching is the daemon gone, not a refusal.
                let text = (error as? Refused)?.why ?? (error as? DaemonError)?.message ?? "\(error)"
                refused = error is Refused || (!watching && !text.hasPrefix("no transfertop daemon"))
                if text != lastFailure, refused { note("daemon: \(text)") }
                lastFailure = text
            }
            let wentAway = shared.withLock { s -> Bool in
                defer { (s.connected, s.channel, s.controlClient) = (false, nil, nil) }
                let away = s.connected && !s.stopped && !refused
                if away { s.gone = true }
                return away
            }
            if wentAway {
                note("the daemon went away (stopped or killed): background rows keep their last state; "
                     + "'transfertop daemon start' brings it back and this monitor reconnects")
            }
            // Until it is back: one look a second (a connect attempt costs one failed syscall);
            // after a refusal, twice as long each time up to 30 s.
            pause = refused ? min(pause * 2, 30) : 1
            wake.lock()
            if !shared.withLock({ $0.stopped }) { _ = wake.wait(until: Date().addingTimeInterval(pause)) }
            wake.unlock()
        }
    }
}
