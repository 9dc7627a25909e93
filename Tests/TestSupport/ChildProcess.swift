import Foundation

/// Every program the tests start (the built binary, tmux, curl, python servers, sshd) is
/// started here, by posix_spawn, with no descriptor of the test process but the three it is
/// given.
///
/// Why not Foundation's `Process`: it hands the child every descriptor without close-on-exec
/// (Foundation's own `Pipe` has none), and tests run side by side. A pipe one test reads to its
/// end, or a socket a server waits to see closed, then stays open in whatever long-lived child
/// another test started at that moment (a tmux server, a daemon, sshd), and the first test
/// waits for ever. Its child reaping on Linux was also seen to stall (see `Tmux.run`).
public struct ChildProcess: Sendable {
    public let pid: pid_t

    /// Where one of the child's standard descriptors goes.
    public enum Stream: Sendable {
        case null
        /// A file, created or truncated (output) or read (input).
        case path(String)
        /// A descriptor of ours (a pipe end from `closeOnExecPipe`); the child gets a copy.
        case descriptor(Int32)
    }

    /// Starts `argv[0]` (an absolute path) with `argv`. `environment` nil: the test process's.
    /// The child starts with default signal dispositions and an empty mask: an ignored SIGHUP
    /// or SIGPIPE inherited from the test runner would change how it ends.
    public static func spawn(_ argv: [String], environment: [String: String]? = nil,
                             standardInput: Stream = .null, standardOutput: Stream = .null,
                             standardError: Stream = .null) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .path(let path):
                posix_spawn_file_actions_addopen(&actions, fd, path, fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .descriptor(let ours): posix_spawn_file_actions_adddup2(&actions, ours, fd)
            }
        }
        try closeEveryOtherDescriptor(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var cArgs = argv.map { strdup($0) } + [nil]
        let env = environment ?? ProcessInfo.processInfo.environment
        var cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cArgs + cEnv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, &cArgs, &cEnv)
        guard rc == 0 else { throw TestFailure("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
        return ChildProcess(pid: pid)
    }

    /// Waits for the child and returns its exit status (128 + the signal when one ended it;
    /// -1 when it cannot be waited for, e.g. already reaped). Blocks: call it off the
    /// cooperative pool.
    public func waitBlocking() -> Int32 {
        var status: Int32 = 0
        var rc: pid_t
        repeat { rc = waitpid(pid, &status, 0) } while rc < 0 && errno == EINTR
        guard rc == pid else { return -1 }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// A pipe whose two ends close on exec: no child gets either end unless it is handed one
    /// (`.descriptor`, which gives the child a copy without the flag).
    public static func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
        // pipe2, looked up as below: made with the flag, never a moment without it.
        guard let symbol = dlsym(nil, "pipe2") else { throw TestFailure("libc has no pipe2") }
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        var fds: [Int32] = [0, 0]
        guard unsafeBitCast(symbol, to: Pipe2.self)(&fds, O_CLOEXEC) == 0 else {
            throw TestFailure("pipe2: \(String(cString: strerror(errno)))")
        }
        return (fds[0], fds[1])
    }

    /// glibc 2.34's posix_spawn_file_actions_addclosefrom_np, looked up because Swift sees it
    /// only with _GNU_SOURCE (BackgroundWire's DaemonLauncher does the same).
    private static func closeEveryOtherDescriptor(_ actions: inout posix_spawn_file_actions_t) throws {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw TestFailure("libc has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later is needed)")
        }
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }
}

/// A test's own failure with its message (a program that would not start, a tool's output).
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
