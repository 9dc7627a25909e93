import Foundation
import TransferModel

/// The first exchange of every connection to the daemon, bounded: a daemon that is stopped
/// (Ctrl-Z on `daemon run`) or hung still accepts connections (the kernel queues them), and
/// without a bound every command, and every library session, would wait for ever.
public enum DaemonHello {
    /// How long a hello may take: far more than a loaded machine needs. A daemon answers it on
    /// a thread of its own, but only once it has restored its journal (a starting daemon
    /// listens first), which for a journal of many thousand tasks under a sanitizer takes tens
    /// of seconds. `TRANSFERTOP_TEST_HELLO_TIMEOUT` shortens it for the test of a stopped daemon.
    public static var timeout: Double {
        ProcessEnvironment.value("TRANSFERTOP_TEST_HELLO_TIMEOUT").flatMap(Double.init).map { max(0.1, $0) } ?? 120
    }

    /// Sends `hello` on `channel` and reads the reply within `timeout`; the bound is cleared
    /// again (a follower then waits for events without end). A reply that does not come is
    /// `DaemonError.isNoAnswer`, naming the daemon's pid and how to resume or stop it.
    public static func exchange<Reply: Decodable>(_ hello: some Encodable, on channel: LineChannel, reply: Reply.Type,
                                                  paths: DaemonPaths) throws(DaemonError) -> Reply? {
        try channel.send(hello)
        channel.setReceiveTimeout(timeout)
        defer { channel.setReceiveTimeout(nil) }
        do { return try channel.receive(Reply.self) } catch {
            guard error.message == LineChannel.timedOut else { throw error }
            let pid = DaemonLock.holderPID(paths.lock)
            let who = pid.map { "the transfertop daemon (pid \($0))" } ?? "the transfertop daemon"
            throw DaemonError("\(who) does not answer within \(Int(timeout)) s: it may be stopped"
                              + (pid.map { " ('kill -CONT \($0)' resumes it)" } ?? "") + " or hung ('transfertop daemon stop' ends it)",
                              isNoAnswer: true)
        }
    }
}
