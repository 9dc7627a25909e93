import Foundation
import TransferModel

/// A problem of the background daemon or of talking to it: one line for the user.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// A daemon holds its lock but did not answer a hello in time (`DaemonHello`).
    public let isNoAnswer: Bool
    public init(_ message: String, isNoAnswer: Bool = false) { (self.message, self.isNoAnswer) = (message, isNoAnswer) }
    public var description: String { message }
}

/// Where the daemon of this user listens and keeps its journal.
///
/// The socket and the lock live in `$XDG_RUNTIME_DIR/transfertop` (a per-user tmpfs that
/// systemd removes at logout), else in `/tmp/transfertop-UID`. Either directory is made 0700
/// and must belong to this user: a directory someone else made in /tmp first is refused, not
/// used (a socket there could be theirs). The journal is state that outlives logouts:
/// `$XDG_STATE_HOME/transfertop/background.sqlite`.
public struct DaemonPaths: Sendable, Equatable {
    public init(runtimeDirectory: String, stateDirectory: String) {
        (self.runtimeDirectory, self.stateDirectory) = (runtimeDirectory, stateDirectory)
    }

    public var runtimeDirectory: String
    public var stateDirectory: String
    public var socket: String { runtimeDirectory + "/daemon.sock" }
    public var lock: String { runtimeDirectory + "/daemon.lock" }
    public var journal: String { stateDirectory + "/background.sqlite" }
    /// The journal's own lock: one daemon per journal, also for two daemons whose runtime
    /// directories differ (one shell with XDG_RUNTIME_DIR, another falling back to /tmp).
    public var journalLock: String { stateDirectory + "/background.lock" }
    /// The detached daemon's stderr (its start-up failures and notices).
    public var log: String { stateDirectory + "/daemon.log" }

    /// `create: false` (a library session that may never need the daemon) makes nothing; a
    /// directory that exists is checked all the same.
    public static func standard(_ env: [String: String] = ProcessEnvironment.current(),
                                create: Bool = true) throws(DaemonError) -> DaemonPaths {
        let runtime: String
        if let x = env["XDG_RUNTIME_DIR"], !x.isEmpty { runtime = x + "/transfertop" } else { runtime = "/tmp/transfertop-\(getuid())" }
        try privateDirectory(runtime, create: create)
        guard let given = StatePaths.stateDirectory(nil, environment: env) else {
            throw DaemonError("neither XDG_STATE_HOME nor HOME is set: no place for the background journal")
        }
        let state = URL(fileURLWithPath: given).standardizedFileURL.path
        try privateDirectory(state, create: create)
        return DaemonPaths(runtimeDirectory: runtime, stateDirectory: state)
    }

    /// Creates `path` (and its parents) 0700, or checks an existing one is a directory of ours
    /// that nobody else can enter.
    public static func privateDirectory(_ path: String, create: Bool = true) throws(DaemonError) {
        if !create, !FileManager.default.fileExists(atPath: path) { return }
        let code = PrivateDirectory.create(path)
        if code != 0 {
            throw DaemonError("cannot create '\(SafeQuote.quote(path))': \(SafeQuote.quote(DirectoryProblem.reason(creating: path, code: code), limit: 200))")
        }
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw DaemonError("'\(SafeQuote.quote(path))' is not a directory")
        }
        guard st.st_uid == geteuid() else {
            throw DaemonError("'\(SafeQuote.quote(path))' belongs to another user; not used")
        }
        if st.st_mode & 0o077 != 0 { chmod(path, 0o700) }
    }
}
