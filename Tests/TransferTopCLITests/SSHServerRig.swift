import BackgroundWire
import Foundation
import TestSupport

/// A real OpenSSH server on 127.0.0.1 for the remote-daemon tests: a throw-away host key and
/// client key, `known_hosts` with the host key (StrictHostKeyChecking on), and an ssh client
/// configuration with one `Host` alias per simulated machine. Each alias sends its own XDG
/// directories (`SetEnv`, accepted by the server), so two aliases are two hosts with two
/// daemons and two state directories. The sanitizer options travel the same way, so a daemon
/// started through ssh runs as the test's own processes do, and so do the variables a test
/// gives every host (`sending`, such as `TRANSFERTOP_OTLP`).
final class SSHServerRig: @unchecked Sendable {
    // @unchecked: fixed after init; `process` is only terminated.
    let dir: String
    let port: Int
    /// The ssh client configuration (`ssh -F`).
    var config: String { dir + "/ssh_config" }
    /// Per alias: the environment a command run "on that host" uses (its XDG directories, and
    /// the variables every host was given).
    let hosts: [String: [String: String]]
    private let process: ChildProcess

    /// The environment of a local command that reaches these hosts: ssh with this
    /// configuration, and the built binary as the remote program.
    var clientEnvironment: [String: String] {
        ["TRANSFERTOP_SSH_COMMAND": "ssh -F \(config)", "TRANSFERTOP_REMOTE_PROGRAM": Binary.path ?? "transfertop"]
    }

    /// Made off Swift's cooperative pool: making it runs ssh-keygen and reads sshd's log,
    /// blocking reads that must never hold one of the pool's few threads (a pipe whose write
    /// end another test's long-lived child inherited would hold it for ever).
    static func start(aliases: [String], sending shared: [String: String] = [:]) async throws -> SSHServerRig {
        try await offPool { try SSHServerRig(aliases: aliases, sending: shared) }
    }

    private init(aliases: [String], sending shared: [String: String]) throws {
        let sshd = "/usr/sbin/sshd"
        guard FileManager.default.isExecutableFile(atPath: sshd) else {
            throw TestFailure("sshd is not installed (package openssh-server): run scripts/setup")
        }
        let keygen = try RequiredTool.program("ssh-keygen")
        _ = try RequiredTool.program("ssh")
        dir = try Run.tempDirectory()
        for key in ["host_key", "client_key"] {
            let r = try ToolRun.runBlocking(keygen, ["-q", "-t", "ed25519", "-N", "", "-C", "transfertop-test", "-f", dir + "/" + key])
            guard r.status == 0 else { throw TestFailure("ssh-keygen failed: \(r.output)") }
        }
        try FileManager.default.copyItem(atPath: dir + "/client_key.pub", toPath: dir + "/authorized_keys")
        // sshd refuses to start without its privilege separation directory (root runs only).
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o755])
        // The port is free when asked; another suite may take it before sshd binds it: then
        // sshd exits at once saying so, and the rig asks again (below).
        var port = try Self.freePort()
        let forwarded = ["XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
                         "TSAN_OPTIONS", "ASAN_OPTIONS"] + shared.keys.sorted()
        try """
        ListenAddress 127.0.0.1
        HostKey \(dir)/host_key
        AuthorizedKeysFile \(dir)/authorized_keys
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        UsePAM no
        StrictModes no
        PermitRootLogin prohibit-password
        PidFile \(dir)/sshd.pid
        AcceptEnv \(forwarded.joined(separator: " "))
        LogLevel INFO

        """.write(toFile: dir + "/sshd_config", atomically: true, encoding: .utf8)
        var hosts: [String: [String: String]] = [:]
        for alias in aliases {
            var env = shared
            for key in ["XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"] {
                env[key] = dir + "/\(alias)/" + key.lowercased()
            }
            hosts[alias] = env
        }
        self.hosts = hosts
        // In the foreground (-D), its log on stderr (-e): it is listening once it says so, and
        // it exits (end of its log) when it cannot. The read ends either way: no deadline needed.
        var attempt = 0
        var started: ChildProcess?
        while started == nil {
            let log = try ChildProcess.closeOnExecPipe()
            let process: ChildProcess
            do {
                process = try ChildProcess.spawn([sshd, "-D", "-e", "-f", dir + "/sshd_config", "-o", "Port=\(port)"],
                                                 standardError: .descriptor(log.write))
            } catch {
                close(log.read)
                close(log.write)
                throw error
            }
            close(log.write)
            var said = ""
            let reader = FileHandle(fileDescriptor: log.read, closeOnDealloc: true)
            while !said.contains("Server listening on") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                said += String(decoding: chunk, as: UTF8.self)
            }
            if said.contains("Server listening on") {
                started = process
                // The log goes on (a line per login): drained so sshd never blocks on a full pipe.
                Thread.detachNewThread { while !reader.availableData.isEmpty {} }
                continue
            }
            _ = process.waitBlocking()
            attempt += 1
            guard attempt < 5, said.contains("Address already in use") else { throw TestFailure("sshd did not start: \(said)") }
            port = try Self.freePort()
        }
        self.port = port
        process = started!
        let hostKey = try String(contentsOfFile: dir + "/host_key.pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try "[127.0.0.1]:\(port) \(hostKey)\n".write(toFile: dir + "/known_hosts", atomically: true, encoding: .utf8)
        try clientConfig(port: port).write(toFile: dir + "/ssh_config", atomically: true, encoding: .utf8)
    }

    /// One `Host` block per alias: the server's port, the throw-away key, its own known_hosts,
    /// no prompt, and the alias's directories (and the sanitizer options) sent along.
    func clientConfig(port: Int) -> String {
        let sanitizer = ProcessInfo.processInfo.environment.filter { ["TSAN_OPTIONS", "ASAN_OPTIONS"].contains($0.key) }
        return hosts.keys.sorted().map { alias in
            let sent = hosts[alias]!.merging(sanitizer) { a, _ in a }.sorted { $0.key < $1.key }
                .map { "\($0.key)=\"\($0.value)\"" }.joined(separator: " ")
            return """
            Host \(alias)
              HostName 127.0.0.1
              Port \(port)
              IdentityFile \(dir)/client_key
              IdentitiesOnly yes
              UserKnownHostsFile \(dir)/known_hosts
              StrictHostKeyChecking yes
              BatchMode yes
              SetEnv \(sent)

            """
        }.joined()
    }

    /// A port nobody listens on now (the kernel's choice for a socket bound to port 0).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
                bind(fd, p, size) == 0 && getsockname(fd, p, &size) == 0
            }
        }
        guard bound else { throw TestFailure("no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        // The daemons ssh started (detached, as on a real host) go with the rig.
        for env in hosts.values {
            if let paths = try? DaemonPaths.standard(env), let pid = DaemonLock.holderPID(paths.lock) { kill(pid, SIGKILL) }
        }
        kill(process.pid, SIGTERM)
        _ = process.waitBlocking()
        try? FileManager.default.removeItem(atPath: dir)
    }
}
