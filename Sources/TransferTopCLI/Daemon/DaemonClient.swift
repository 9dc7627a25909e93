import BackgroundWire
import Foundation
import TransferKit

/// A connection to this user's daemon, which it starts when none runs (issue 12: "started on
/// demand by the CLI"). Every connection begins with `hello`; a daemon of another version is
/// refused with a message, or replaced when it is idle (`connect(…, replaceIdleOlder:)`).
public final class DaemonClient: @unchecked Sendable {
    // @unchecked: fixed after init; the channel is used by one thread at a time.
    public let channel: LineChannel
    public let daemonVersion: String
    public let daemonPID: Int32

    init(channel: LineChannel, version: String, pid: Int32) {
        (self.channel, daemonVersion, daemonPID) = (channel, version, pid)
    }

    /// Connects, starting the daemon if `start` and none listens. A daemon of another version
    /// that has nothing unfinished is stopped and started again (with a note on stderr); a
    /// busy one is an error saying how to replace it.
    public static func connect(_ paths: DaemonPaths, start: Bool) throws(DaemonError) -> DaemonClient {
        let client: DaemonClient
        do { client = try hello(paths) } catch {
            guard start else { throw DaemonError("no transfertop daemon is running") }
            try startDaemon(paths)
            client = try helloWhileStarting(paths)
        }
        guard client.daemonVersion != DaemonServer.version else { return client }
        return try client.replaceIfIdle(paths, start: start)
    }

    static func hello(_ paths: DaemonPaths, claiming version: String = DaemonServer.version) throws(DaemonError) -> DaemonClient {
        let channel = try LineChannel.connect(paths.socket)
        try channel.send(DaemonRequest.hello(version: version))
        guard case .hello(let version, let pid, _)? = try channel.receive(DaemonReply.self) else {
            throw DaemonError("the daemon at '\(paths.socket)' did not answer hello")
        }
        return DaemonClient(channel: channel, version: version, pid: pid)
    }

    /// Hello to a daemon that has just started (ours, or another client's that won the race):
    /// it listens from the moment it holds the lock, so a refused connection is retried only
    /// while some process holds it, for at most ten seconds.
    static func helloWhileStarting(_ paths: DaemonPaths) throws(DaemonError) -> DaemonClient {
        let deadline = Date().addingTimeInterval(10)
        while true {
            do { return try hello(paths) } catch {
                guard DaemonLock.holderPID(paths.lock) != nil, Date() < deadline else { throw error }
                usleep(10_000)
            }
        }
    }

    /// Version skew: an idle daemon of another version is restarted as ours; a busy one is left
    /// alone, and the message says how to restart it without losing its work.
    func replaceIfIdle(_ paths: DaemonPaths, start: Bool) throws(DaemonError) -> DaemonClient {
        let skew = "the running daemon (pid \(daemonPID)) is version \(daemonVersion), this transfertop is \(DaemonServer.version)"
        // The daemon served our hello only; ask on a connection that claims its version.
        let probe = try Self.hello(paths, claiming: daemonVersion).channel
        try probe.send(DaemonRequest.status(session: nil))
        guard case .status(let sessions)? = try probe.receive(DaemonReply.self) else { throw DaemonError(skew) }
        let busy = sessions.flatMap(\.tasks).filter { $0.state != "completed" }.count
        guard busy == 0, start else {
            throw DaemonError("\(skew); it has \(busy) unfinished task(s). 'transfertop daemon stop' stops it keeping "
                              + "resume data; the next command starts this version, which resumes them")
        }
        FileHandle.standardError.write(Data("transfertop: note: \(skew) and idle; restarting it\n".utf8))
        try probe.send(DaemonRequest.stop)
        _ = try? probe.receive(DaemonReply.self)
        guard Self.waitUntilGone(paths) else { throw DaemonError("\(skew); it is still stopping; try again") }
        try Self.startDaemon(paths)
        let fresh = try Self.helloWhileStarting(paths)
        guard fresh.daemonVersion == DaemonServer.version else { throw DaemonError("\(skew); another one started meanwhile") }
        return fresh
    }

    /// Waits (at most `seconds`) for a stopping daemon to release its lock; it exits right
    /// after answering. Bounded: a new daemon another command starts meanwhile would hold it.
    @discardableResult
    static func waitUntilGone(_ paths: DaemonPaths, seconds: Double = 30) -> Bool {
        let fd = open(paths.lock, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(seconds)
        while flock(fd, LOCK_SH | LOCK_NB) != 0 {
            guard Date() < deadline else { return false }
            usleep(5_000)
        }
        flock(fd, LOCK_UN)
        return true
    }

    /// A connection to whatever daemon runs, of any version: `daemon status` and `daemon stop`
    /// must reach an old one (the skew message tells the user to stop it).
    public static func connectAnyVersion(_ paths: DaemonPaths) throws(DaemonError) -> DaemonClient {
        let first = try hello(paths)
        guard first.daemonVersion != DaemonServer.version else { return first }
        return try hello(paths, claiming: first.daemonVersion)
    }

    public func request(_ r: DaemonRequest) throws(DaemonError) -> DaemonReply {
        try channel.send(r)
        guard let reply = try channel.receive(DaemonReply.self) else { throw DaemonError("the daemon closed the connection") }
        if case .failure(let why) = reply { throw DaemonError(why) }
        return reply
    }

    /// Starts `transfertop daemon` detached (its own session, no terminal, stderr to the
    /// daemon log) and waits until it says it listens, or exits. A daemon that another client
    /// started first makes ours exit at the lock; then the other one answers.
    static func startDaemon(_ paths: DaemonPaths) throws(DaemonError) {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw DaemonError("pipe: \(String(cString: strerror(errno)))") }
        let (readEnd, writeEnd) = (pipeFDs[0], pipeFDs[1])
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(readEnd) }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, paths.log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 3)  // dup2 clears FD_CLOEXEC on 3
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own session: a Ctrl-C or a closed terminal of the client does not reach it.
        let setsid: Int16 = 0x80  // glibc's POSIX_SPAWN_SETSID, visible to Swift only with _GNU_SOURCE
        posix_spawnattr_setflags(&attributes, setsid)
        var env = ProcessInfo.processInfo.environment
        env["TRANSFERTOP_DAEMON_READY_FD"] = "3"
        let words: [String] = [executable, "daemon", "run"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var spawned: pid_t = 0
        let rc = posix_spawn(&spawned, executable, &actions, &attributes, argv, envp)
        let pid = spawned
        close(writeEnd)
        guard rc == 0 else { throw DaemonError("cannot start the daemon '\(executable)': \(String(cString: strerror(rc)))") }
        // "ready", or EOF when it exited (or another daemon holds the lock).
        var buffer = [UInt8](repeating: 0, count: 16)
        var n: Int
        repeat { n = read(readEnd, &buffer, buffer.count) } while n < 0 && errno == EINTR
        if n <= 0 {
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            // Another client's daemon won the start: it listens from the moment it holds the lock.
            if let other = DaemonLock.holderPID(paths.lock), other != pid { return }
            throw DaemonError("the daemon did not start; see \(paths.log)")
        }
        // Reap it when it exits one day, so no zombie stays while this client runs.
        Thread.detachNewThread { var status: Int32 = 0; waitpid(pid, &status, 0) }
    }
}
