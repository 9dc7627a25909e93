import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit
import TransferTopRun

/// `transfertop daemon`: the process that runs background sessions. One per user
/// (`DaemonLock`); it listens on `DaemonPaths.socket` and serves each client on a thread of
/// its own; it keeps everything in the journal and restores it when it starts.
package enum DaemonServer {
    /// The version a client and its daemon must share. `TRANSFERTOP_TEST_DAEMON_VERSION` lets
    /// the tests play a client and daemon of another version (a test run has one build).
    static var version: String { ProcessEnvironment.value("TRANSFERTOP_TEST_DAEMON_VERSION") ?? VersionInfo.version }

    static let forever = Locked<CheckedContinuation<Void, Never>?>(nil)

    /// Runs until `daemon stop`, SIGTERM or SIGINT; returns the exit status (1: could not start).
    package static func run(_ paths: DaemonPaths) async -> Int32 {
        let say: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("transfertop daemon: \($0)\n".utf8)) }
        let lock: DaemonLock, journalLock: DaemonLock
        do { lock = try DaemonLock.acquire(paths.lock) } catch {
            say(error.message)
            return 1
        }
        do { journalLock = try DaemonLock.acquire(paths.journalLock) } catch {
            guard let holder = DaemonLock.holderPID(paths.journalLock) else {
                say(error.message)
                return 1
            }
            say("another transfertop daemon (pid \(holder)) runs the journal \(paths.journal), listening in another runtime "
                + "directory (its XDG_RUNTIME_DIR differs): stop it, or use the same XDG_RUNTIME_DIR")
            return 1
        }
        // Listening before the journal is read and restored: a client that lost the start race
        // connects at once and its hello waits in the backlog until `serve`.
        let listener: UnixListener
        do { listener = try UnixListener(path: paths.socket) } catch {
            say(error.message)
            return 1
        }
        // Not holding the directory it was started from (a mount point, say) busy.
        _ = chdir("/")
        let journal: Journal
        do {
            let (j, notice) = try Journal.open(at: paths.journal)
            if let notice { say(notice) }
            journal = j
        } catch {
            say("cannot open the journal: \(error)")
            return 1
        }
        let host = BackgroundHost(journal: journal, observability: observability(say))
        do { try host.restore() } catch { say("restoring from the journal: \(error)") }
        let stopping = Locked(false)
        let stop: @Sendable () -> Never = {
            // Once: `daemon stop` and SIGTERM together must not stop twice or exit on two threads.
            if stopping.withLock({ s in defer { s = true }; return s }) {
                while true { pause() }
            }
            host.stopAll()
            host.observability.finishBlocking()
            listener.close()
            // Everything is on disk: the WAL goes into the file, which alone then holds the
            // journal (a copy of the file, or a damaged WAL, loses nothing acknowledged).
            do { try journal.close() } catch { say("closing the journal: \(error)") }
            withExtendedLifetime((lock, journalLock)) {}
            exit(0)
        }
        listener.serve { channel in serve(channel, host: host, paths: paths, stop: stop) }
        let signals = SignalWatcher { _ in DispatchQueue.global().async { stop() } }
        say("pid \(getpid()) listening at \(paths.socket), journal \(paths.journal)")
        ready()
        // Sleeps until `stop` exits the process. The continuation is kept, never resumed: a
        // dropped one is reported as a leak.
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in forever.withLock { $0 = c } }
        signals.cancel()
        return 0
    }

    /// `TRANSFERTOP_OTLP=URL` in the daemon's environment (the shell of the command that started
    /// it on demand, or the systemd unit's `Environment=`): every background task as a trace,
    /// as `--otlp` does for a local run (DECISIONS 188). A bad value is said and ignored.
    static func observability(_ say: @Sendable (String) -> Void) -> RunObservability {
        var observability = RunObservability()
        guard let collector = ProcessEnvironment.value("TRANSFERTOP_OTLP"), !collector.isEmpty else { return observability }
        do {
            observability.startTraces(try OptionValues.otlp(collector), holdingWarnings: false)
            say("exporting each task as a trace (TRANSFERTOP_OTLP)")
        } catch {
            say("TRANSFERTOP_OTLP: \(error.reason)")
        }
        return observability
    }

    /// Tells the client that started us (`DaemonClient.startDaemon`) that the socket listens.
    static func ready() {
        guard let text = ProcessEnvironment.value("TRANSFERTOP_DAEMON_READY_FD"), let fd = Int32(text) else { return }
        _ = "ready\n".withCString { write(fd, $0, 6) }
        close(fd)
    }

    /// One client: `hello` first, then requests until it hangs up.
    static func serve(_ channel: LineChannel, host: BackgroundHost, paths: DaemonPaths, stop: @escaping @Sendable () -> Never) {
        do {
            guard case .hello(let theirs)? = try channel.receive(DaemonRequest.self) else {
                try channel.send(DaemonReply.failure("expected hello"))
                return
            }
            try channel.send(DaemonReply.hello(version: version, pid: getpid(), journal: paths.journal))
            // The client says what to do about the skew; a library speaks its own wire version.
            if theirs != version && theirs != LibraryWire.helloVersion { return }
            while let request = try channel.receive(DaemonRequest.self) {
                switch request {
                case .hello:
                    try channel.send(DaemonReply.failure("hello twice"))
                case .submit(let session, let options):
                    try channel.send(answer { .submitted(session: session, tasks: try host.submit(session: session, options: options)) })
                case .status(let session):
                    try channel.send(answer { .status(try host.status(session)) })
                case .follow(let session, let after, let untilDone):
                    try host.follow(session, after: after, untilDone: untilDone, on: channel)
                case .control(let session, let task, let action):
                    try channel.send(answer { .ok(try host.control(session, task: task, action: action)) })
                case .change(let session, let task, let change):
                    try channel.send(answer { .ok(try host.change(session, task: task, change)) })
                case .stop:
                    try channel.send(DaemonReply.ok("stopping"))
                    stop()
                case .watch(let session):
                    try host.watch(session, on: channel)
                case .library(.attach(let session)):
                    try host.libraryAttach(session, on: channel)
                case .library(.download(let session, let download)):
                    // Answered before it starts: see `submitDeferred`.
                    var start: (@Sendable () -> Void)?
                    let reply = answer {
                        let (number, begin) = try host.libraryDownload(session, download)
                        start = begin
                        return .library(.submitted(task: number))
                    }
                    defer { start?() }
                    try channel.send(reply)
                case .library(let r):
                    try channel.send(answer { .library(try host.library(r)) })
                }
            }
        } catch {
            // The client went away or sent garbage: its connection ends, the daemon goes on.
        }
    }

    /// A request's reply, or its error as a `.failure` for the user.
    static func answer(_ body: () throws -> DaemonReply) -> DaemonReply {
        do { return try body() } catch let e as DaemonError { return .failure(e.message) } catch let e as UsageError {
            return .failure(e.reason)
        } catch let e as JournalError { return .failure("journal: \(e.message)") } catch { return .failure("\(error)") }
    }
}
