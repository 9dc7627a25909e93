import BackgroundWire
import Foundation
import Synchronization
import TransferKit
import TransferTopUI

/// The monitor's view of the daemon (issue 12, DECISIONS 128): a thread of its own holds a
/// `watch` connection and keeps the latest status; the UI loop takes it each frame with
/// `snapshots()`, as it takes the runner's, and never waits on the socket. Keys on background
/// rows become `control` requests on a queue of their own; their answers come back as notices
/// for the status line. When the daemon goes away the rows keep their last state, marked
/// "daemon gone", and the thread connects again each second until one answers.
public final class DaemonFeed: @unchecked Sendable {
    // @unchecked: mutable state is behind `shared` (a lock) and `converter` (the UI thread's).
    let paths: DaemonPaths
    /// `attach NAME`: only that session; nil: every background session.
    let session: String?

    struct Shared {
        var statuses: [BackgroundSessionStatus] = []
        var generation = 0
        var connected = false
        var everConnected = false
        var notices: [String] = []
        var channel: LineChannel?
        var stopped = false
        var controlClient: DaemonClient?
    }

    private let shared = Locked(Shared())
    private let wake = NSCondition()
    private let keys = DispatchQueue(label: "transfertop.monitor.daemon-keys")
    /// The UI thread's: names, ids and the converted picture of the last generation.
    private var converter = DaemonSnapshots()
    private var converted: (generation: Int, sessions: [SessionSnapshot]) = (-1, [])

    init(paths: DaemonPaths, session: String?) {
        (self.paths, self.session) = (paths, session)
    }

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
    func stop() {
        let channel = shared.withLock { s -> LineChannel? in s.stopped = true; return s.channel }
        channel?.shutdown()
        wake.lock(); wake.broadcast(); wake.unlock()
    }

    // MARK: the UI thread's side

    /// The latest picture as snapshots; converted again only when a new one came.
    func snapshots(now: Date) -> [SessionSnapshot] {
        let (generation, statuses) = shared.withLock { ($0.generation, $0.statuses) }
        if generation != converted.generation {
            converted = (generation, converter.sessions(statuses, now: now))
        }
        return converted.sessions
    }

    /// State changes seen between pictures, for the event log (UI thread).
    func takeEvents() -> [TransferEvent] { converter.takeEvents() }

    var isGone: Bool { shared.withLock { $0.everConnected && !$0.connected } }

    func takeNotices() -> [String] { shared.withLock { s in defer { s.notices = [] }; return s.notices } }

    /// What a key on a background row asks of the daemon, sent off the UI thread; nil for an
    /// effect that is not on the daemon's rows. Returns the status line's text meanwhile.
    func route(_ effect: Effect) -> String? {
        func task(_ id: TaskID, _ action: BackgroundAction) -> String? {
            guard DaemonRows.owns(id.session) else { return nil }
            guard let name = converter.name(of: id.session) else { return "no background session for \(id)" }
            send(name, Int64(id.task), action)
            return "asking the daemon: \(action.rawValue) \(name):\(id.task)…"
        }
        switch effect {
        case .suspend(let id): return task(id, .suspend)
        case .resume(let id): return task(id, .resume)
        case .cancel(let id): return task(id, .cancel)
        case .cancelWithResumeData(let id): return task(id, .cancelWithResumeData)
        case .resumeFromResumeData(let id):
            return DaemonRows.owns(id.session) ? "the daemon cannot continue a task from resume data" : nil
        case .invalidateAndCancel(let sid):
            guard DaemonRows.owns(sid) else { return nil }
            guard let name = converter.name(of: sid) else { return "no background session \(sid)" }
            send(name, nil, .invalidate)
            return "asking the daemon: invalidate \(name)…"
        case .finishAndInvalidate(let sid), .newTask(_, let sid):
            return DaemonRows.owns(sid) ? "the daemon cannot do that; see ? (Background sessions)" : nil
        default:
            return nil
        }
    }

    private func send(_ name: String, _ task: Int64?, _ action: BackgroundAction) {
        keys.async { [self] in
            let label = task.map { "\(name):\($0)" } ?? name
            do throws(DaemonError) {
                let client: DaemonClient
                if let kept = shared.withLock({ $0.controlClient }) { client = kept } else {
                    client = try DaemonClient.connect(paths, start: false)
                    shared.withLock { $0.controlClient = client }
                }
                let reply = try client.request(.control(session: name, task: task, action: action))
                if case .ok(let text) = reply { note("daemon, \(label): \(text)") }
            } catch {
                // A refusal and a daemon gone look alike here: the next key connects afresh.
                shared.withLock { $0.controlClient = nil }
                note("daemon, \(label): \(error.message)")
            }
        }
    }

    private func note(_ text: String) { shared.withLock { $0.notices.append(text) } }

    // MARK: the feed's thread

    private func loop() {
        var lastFailure: String?
        while !shared.withLock({ $0.stopped }) {
            do throws(DaemonError) {
                guard paths.runtimeDirectoryIsOurs else { throw DaemonError("no transfertop daemon is running") }
                let client = try DaemonClient.connect(paths, start: false)
                let back = shared.withLock { s -> Bool in
                    s.channel = client.channel
                    return s.everConnected && !s.stopped
                }
                if shared.withLock({ $0.stopped }) { client.channel.shutdown() }
                try client.channel.send(DaemonRequest.watch(session: session))
                var first = true
                while let reply = try client.channel.receive(DaemonReply.self) {
                    switch reply {
                    case .status(let statuses):
                        shared.withLock { s in
                            (s.statuses, s.connected, s.everConnected) = (statuses, true, true)
                            s.generation += 1
                        }
                        if first, back { note("the daemon is back (pid \(client.daemonPID))") }
                        (first, lastFailure) = (false, nil)
                    case .failure(let why):
                        // The watch ended (an unknown session): this connection serves no more.
                        client.channel.shutdown()
                        throw DaemonError(why)
                    default:
                        continue
                    }
                }
            } catch {
                // No daemon is a local run's usual case and goes unsaid; anything else (version
                // skew, an unknown session) is said once, not at every look.
                let text = error.message
                if text != lastFailure, !text.hasPrefix("no transfertop daemon") { note("daemon: \(text)") }
                lastFailure = text
            }
            let wasConnected = shared.withLock { s -> Bool in
                defer { (s.connected, s.channel, s.controlClient) = (false, nil, nil) }
                return s.connected && !s.stopped
            }
            if wasConnected {
                note("the daemon went away (stopped or killed): background rows keep their last state; "
                     + "'transfertop daemon start' brings it back and this monitor reconnects")
            }
            // Until it is back: one look a second (a connect attempt costs one failed syscall).
            wake.lock()
            if !shared.withLock({ $0.stopped }) { wake.wait(until: Date().addingTimeInterval(1)) }
            wake.unlock()
        }
    }
}
