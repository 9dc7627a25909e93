import BackgroundWire
import Foundation
import TransferKit

/// A connection to this user's daemon, which it starts when none runs (started on
/// demand by the CLI). Every connection begins with `hello`; a daemon of another version is
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
            // One holds the lock and does not answer: starting another would only wait for it.
            if error.isNoAnswer { throw error }
            guard start else { throw DaemonError("no transfertop daemon is running") }
            try startDaemon(paths)
            client = try helloWhileStarting(paths)
        }
        guard client.daemonVersion != DaemonServer.version else { return client }
        return try client.replaceIfIdle(paths, start: start)
    }

    static func hello(_ paths: DaemonPaths, claiming version: String = DaemonServer.version) throws(DaemonError) -> DaemonClient {
        let channel = try LineChannel.connect(paths.socket)
        guard case .hello(let version, let pid, _)? = try DaemonHello.exchange(DaemonRequest.hello(version: version), on: channel,
                                                                               reply: DaemonReply.self, paths: paths) else {
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

    /// Waits for a stopping daemon to release its lock (`DaemonLauncher.waitUntilGone`).
    @discardableResult
    package static func waitUntilGone(_ paths: DaemonPaths, seconds: Double = 30) -> Bool { DaemonLauncher.waitUntilGone(paths, seconds: seconds) }

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

    /// Starts this executable's `daemon run` detached (`DaemonLauncher.start`).
    static func startDaemon(_ paths: DaemonPaths) throws(DaemonError) {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        try DaemonLauncher.start(paths, executable: executable)
    }
}
