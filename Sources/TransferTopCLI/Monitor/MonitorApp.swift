import BackgroundWire
import Foundation
import Synchronization
import TransferKit
import TransferTopDaemon
import TransferTopRun
import TransferTopUI

/// The ncurses monitor: one loop on one thread takes keys, snapshots and
/// events, updates the `MonitorModel`, and draws it at a capped rate.
public enum MonitorApp {
    /// `daemon`: the background sessions listed beside the run's own (DECISIONS 128).
    public static func run(_ runner: Runner, options: Options, environment: [String: String],
                           stayUntilQuit: Bool, daemon: DaemonFeed? = nil) async -> Int32 {
        let status = await loop(runner, options: options, environment: environment, daemons: daemon.map { [$0] } ?? [], attached: nil)
        if !runner.isFinished { Output.shared.error("transfertop: no task stopped for a while after the cancel; ending without the ones left") }
        // After the terminal is back: the summary, for the scrollback.
        Output.shared.line(LineFormat.summary(runner.taskSnapshots(), succeeded: runner.succeeded))
        if let text = runner.interruptionMessage() { Output.shared.line(text) }
        let errors = runner.writeExports()
        for e in errors { Output.shared.error("transfertop: \(e)") }
        return errors.isEmpty ? status : 1
    }
}

extension MonitorApp {
    /// The UI loop on a thread of its own (ncurses wants one thread); returns its exit status.
    static func loop(_ runner: Runner, options: Options, environment: [String: String], daemons: [DaemonFeed],
                     attached: String?) async -> Int32 {
        let ring = EventRing()
        runner.setEventSink { _, event in ring.push(event) }
        let signals = SignalFlag()
        runner.start()
        for feed in daemons { feed.start() }
        let status: Int32 = await withCheckedContinuation { c in
            let thread = Thread {
                let loop = MonitorLoop(runner: runner, ring: ring, options: options, environment: environment, signals: signals,
                                       daemons: daemons, attached: attached)
                c.resume(returning: loop.run())
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        for feed in daemons { feed.stop() }
        signals.cancel()
        return status
    }

    /// `transfertop attach NAME` on a terminal (DECISIONS 127): the monitor over no local task
    /// and that background session. q and Ctrl-C detach; the daemon's tasks go on.
    /// `connected`: the connection `attach` checked the session with (the feed's first watch).
    static func attach(_ name: String, options: Options, endpoint: DaemonEndpoint, environment: [String: String],
                       connected: DaemonClient? = nil) async -> Int32 {
        let runner = Runner(plan: RunPlan(sessions: [], outputDirectory: FileManager.default.currentDirectoryPath), store: nil)
        let feed = DaemonFeed(endpoint: endpoint, session: name, environment: environment, connected: connected)
        let status = await loop(runner, options: options, environment: environment, daemons: [feed], attached: "background session \(name)")
        var host = ""
        if case .ssh(let destination) = endpoint { host = " --host \(destination)" }
        Output.shared.line("detached from background session \(name); its tasks go on in the daemon (transfertop status \(name)\(host))")
        return status
    }

    /// `transfertop attach ssh://a ssh://b local`: one monitor over several daemons, each
    /// session named `host/NAME` and numbered in its daemon's own range of ids, so a key goes
    /// to the daemon of the selected row. A host that drops keeps its rows, marked
    /// "daemon gone", and is watched again when it answers. `connected`: per target, the
    /// connection made before the terminal was taken (nil for this host's daemon).
    static func attach(_ targets: [AttachTarget], options: Options, paths: DaemonPaths, environment: [String: String],
                       connected: [DaemonClient?]) async -> Int32 {
        let runner = Runner(plan: RunPlan(sessions: [], outputDirectory: FileManager.default.currentDirectoryPath), store: nil)
        let several = targets.count > 1
        let feeds = targets.indices.map { i in
            DaemonFeed(endpoint: targets[i].host.map(DaemonEndpoint.ssh) ?? .local(paths), session: targets[i].session,
                       environment: environment, connected: connected[i], host: several ? (i, targets[i].label) : nil)
        }
        let names = targets.map { t in t.session.map { several ? "\(t.label)/\($0)" : $0 } ?? "every session of \(t.label)" }
        let status = await loop(runner, options: options, environment: environment, daemons: feeds, attached: names.joined(separator: ", "))
        Output.shared.line("detached from \(names.joined(separator: ", ")); the tasks go on in the daemons")
        return status
    }
}

/// SIGINT/SIGTERM/SIGHUP noted for the UI loop, which then quits as `q` does.
final class SignalFlag: Sendable {
    let raised = Atomic<Int32>(0)
    private let watcher = Locked<SignalWatcher?>(nil)

    init() {
        watcher.withLock { $0 = SignalWatcher(signals: [SIGINT, SIGTERM, SIGHUP]) { [weak self] in self?.note($0) } }
    }

    func note(_ signo: Int32) { raised.store(signo, ordering: .relaxed) }

    func cancel() { watcher.withLock { $0?.cancel() } }
}
