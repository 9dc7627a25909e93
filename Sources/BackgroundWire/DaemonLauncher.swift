import Foundation
import TransferModel

/// Starts the daemon on demand and waits for it to stop: shared by the CLI, which starts its
/// own executable, and TransferKit's background sessions, which look for `transfertop`
/// (`DaemonLauncher.executable`).
public enum DaemonLauncher {
    /// Starts `transfertop daemon` detached (its own session, no terminal, stderr to the
    /// daemon log) and waits until it says it listens, or exits. A daemon that another client
    /// started first makes ours exit at the lock; then the other one answers.
    public static func start(_ paths: DaemonPaths, executable: String) throws(DaemonError) {
        var pipeFDs: [Int32] = [0, 0]
        // Close-on-exec from birth (pipe2 is hidden from Swift without _GNU_SOURCE): another
        // thread's fork+exec between pipe() and fcntl() would inherit the write end and keep
        // "ready" from ever reaching EOF (review 15).
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeFDs) == 0 else {
            throw DaemonError("socketpair: \(String(cString: strerror(errno)))")
        }
        let (readEnd, writeEnd) = (pipeFDs[0], pipeFDs[1])
        defer { close(readEnd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, paths.log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 3)  // dup2 clears FD_CLOEXEC on 3
        // The daemon outlives the app: none of the app's other descriptors (sockets, files
        // without close-on-exec) go with it. glibc 2.34+; looked up because Swift sees it only
        // with _GNU_SOURCE.
        if let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(closeFrom, to: CloseFrom.self)(&actions, 4)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own session: a Ctrl-C or a closed terminal of the client does not reach it.
        let setsid: Int16 = 0x80  // glibc's POSIX_SPAWN_SETSID, visible to Swift only with _GNU_SOURCE
        posix_spawnattr_setflags(&attributes, setsid)
        var env = ProcessEnvironment.current()
        env["TRANSFERTOP_DAEMON_READY_FD"] = "3"
        let words: [String] = [executable, "daemon", "run"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var spawned: pid_t = 0
        var logStat = stat()
        let logBefore = stat(paths.log, &logStat) == 0 ? logStat.st_size : 0  // what this daemon writes comes after
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
            let why = lastLine(of: paths.log, after: logBefore).map { ": " + $0 } ?? ""
            throw DaemonError("the daemon did not start\(why) (see \(paths.log))")
        }
        // Reap it when it exits one day, so no zombie stays while this client runs.
        Thread.detachNewThread { var status: Int32 = 0; waitpid(pid, &status, 0) }
    }

    /// The last line the daemon just wrote to its log (past `offset`, from the last 4 KiB):
    /// why it ended. Nil when it wrote none (an older run's line would be a wrong reason).
    static func lastLine(of log: String, after offset: off_t) -> String? {
        let fd = open(log, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let end = lseek(fd, 0, SEEK_END)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let from = max(offset, end - off_t(buffer.count))
        guard from < end else { return nil }
        let n = pread(fd, &buffer, min(buffer.count, Int(end - from)), from)
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self)
        guard let line = text.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { return nil }
        let said = line.hasPrefix("transfertop daemon: ") ? String(line.dropFirst("transfertop daemon: ".count)) : line
        return SafeQuote.quote(said, limit: 400)
    }

    /// Waits (at most `seconds`) for a stopping daemon to release its lock; it exits right
    /// after answering. Bounded: a new daemon another command starts meanwhile would hold it.
    @discardableResult
    public static func waitUntilGone(_ paths: DaemonPaths, seconds: Double = 30) -> Bool {
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
}

extension DaemonLauncher {
    /// The `transfertop` a library process starts the daemon from: `TRANSFERTOP_EXECUTABLE`,
    /// else the one beside the running executable (a build directory, an app's bundle), else
    /// the first on `PATH`; nil when there is none (the tasks then fail, DECISIONS 131).
    public static func executable(_ env: [String: String] = ProcessEnvironment.current()) -> String? {
        if let given = env["TRANSFERTOP_EXECUTABLE"], !given.isEmpty {
            return access(given, X_OK) == 0 ? given : nil
        }
        if let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let beside = (me as NSString).deletingLastPathComponent + "/transfertop"
            if access(beside, X_OK) == 0 { return beside }
        }
        for dir in (env["PATH"] ?? "").split(separator: ":") where !dir.isEmpty {
            let candidate = "\(dir)/transfertop"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
