import BackgroundWire
import Foundation

/// Runs `ssh DESTINATION transfertop daemon dial-stdio` with its stdin and stdout on one end of
/// a socket pair, and gives the other end as the `LineChannel` a local daemon's socket would
/// be: the daemon's protocol travels through ssh unchanged. ssh's stderr stays the caller's,
/// so its own messages (host key, authentication) reach the user.
///
/// `TRANSFERTOP_SSH_COMMAND` replaces `ssh` (run by `/bin/sh`, as git's `GIT_SSH_COMMAND`:
/// `ssh -F my_config`), `TRANSFERTOP_REMOTE_PROGRAM` the remote `transfertop`.
///
/// Not `interactive` (the monitor's reconnections, while curses owns the terminal): ssh may
/// not ask anything (`BatchMode`) and its stderr goes to /dev/null, so nothing it says tears
/// the screen; the monitor shows the host as gone instead.
public enum SSHChannel {
    /// `start`: the remote daemon is started when none runs (`daemon dial-stdio`), else only a
    /// running one answers (`--no-start`).
    public static func open(_ destination: SSHDestination, environment: [String: String],
                            interactive: Bool = true, start: Bool = true) throws(DaemonError) -> LineChannel {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw DaemonError("socketpair: \(String(cString: strerror(errno)))")
        }
        let (ours, theirs) = (fds[0], fds[1])
        let remote = [environment["TRANSFERTOP_REMOTE_PROGRAM"] ?? "transfertop", "daemon", "dial-stdio"] + (start ? [] : ["--no-start"])
        let arguments = destination.sshArguments(remoteCommand: remote, batch: !interactive)
        let words: [String]
        if let command = environment["TRANSFERTOP_SSH_COMMAND"], !command.isEmpty {
            words = ["/bin/sh", "-c", command + " \"$@\"", "transfertop-ssh"] + arguments
        } else {
            words = ["ssh"] + arguments
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, theirs, 0)  // dup2 clears FD_CLOEXEC
        posix_spawn_file_actions_adddup2(&actions, theirs, 1)
        if !interactive { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, words[0], &actions, nil, argv, envp)
        close(theirs)
        guard rc == 0 else {
            close(ours)
            throw DaemonError("cannot run '\(words[0])' for \(destination): \(String(cString: strerror(rc)))")
        }
        // ssh ends when the channel closes (EOF on its stdin); reaped then, so no zombie stays.
        let child = pid
        Thread.detachNewThread { var status: Int32 = 0; while waitpid(child, &status, 0) < 0 && errno == EINTR {} }
        return LineChannel(fd: ours)
    }
}
