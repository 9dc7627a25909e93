import BackgroundWire
import Foundation
import TransferKit
import TransferTopDaemon
import TransferTopRun

/// The client side of the background commands: `--background NAME`, `status`, `wait`, `attach`,
/// `control` and `daemon`. Each talks to the daemon through `DaemonClient`, starting it when
/// none runs (but `daemon status` and `daemon stop`, which only ask).
enum BackgroundCLI {
    static func run(_ command: BackgroundCommand, environment env: [String: String]) async -> Int32 {
        let out = Output.shared
        do {
            // `--host ssh://…`: the same command, answered by that host's daemon through ssh.
            var (command, remote) = (command, DaemonEndpoint?.none)
            if case .onHost(let destination, let inner) = command { (command, remote) = (inner, .ssh(destination)) }
            let paths = try remote == nil ? DaemonPaths.standard(env) : DaemonPaths(runtimeDirectory: "", stateDirectory: "")
            let endpoint = remote ?? .local(paths)
            switch command {
            case .onHost:
                throw UsageError("--host is given once")
            case .daemon where remote != nil:
                throw UsageError("'daemon' acts on this host's daemon only; it takes no --host")
            case .bridge(let start):
                guard remote == nil else { throw UsageError("'daemon dial-stdio' bridges this host's daemon; it takes no --host") }
                return StdioBridge.run(paths, start: start)
            case .daemon(.dialStdio):
                return StdioBridge.run(paths, start: true)
            case .daemon(.run):
                return await DaemonServer.run(paths)
            case .daemon(.start):
                let client = try DaemonClient.connect(paths, start: true)
                out.line("transfertop daemon running (pid \(client.daemonPID), version \(client.daemonVersion))")
            case .daemon(.status):
                return daemonStatus(paths)
            case .daemon(.stop):
                let client: DaemonClient
                do { client = try DaemonClient.connectAnyVersion(paths) } catch {
                    // Only one that holds its lock and does not answer is signalled (not one
                    // that is starting or stopping).
                    if error.isNoAnswer, let pid = DaemonLock.holderPID(paths.lock) { return stopSilentDaemon(pid, paths, error) }
                    out.line("no transfertop daemon is running")
                    return 0
                }
                _ = try client.request(.stop)
                guard DaemonClient.waitUntilGone(paths) else {
                    out.line("transfertop daemon (pid \(client.daemonPID)) is stopping; still saving resume data after 30 s")
                    return 1
                }
                out.line("transfertop daemon (pid \(client.daemonPID)) stopped; unfinished downloads kept their resume data")
            case .status(let session, let json):
                let client = try endpoint.connect(start: true, environment: env)
                guard case .status(let sessions) = try client.request(.status(session: session)) else { return 1 }
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    out.line(String(decoding: try encoder.encode(sessions), as: UTF8.self))
                } else {
                    for line in BackgroundFormat.table(sessions) { out.line(line) }
                }
            case .wait(let session):
                return try follow(endpoint, session, untilDone: true, environment: env) { event in
                    if event.kind == "state", event.task?.state != "completed" { return nil }  // wait says outcomes only
                    return BackgroundFormat.line(event)
                }
            case .attach(let session, let options):
                // A terminal gets the monitor, as a local run does (DECISIONS 127); else lines.
                guard TransferTopMain.useMonitor(options, env) else {
                    return try follow(endpoint, session, untilDone: false, environment: env) { BackgroundFormat.line($0) }
                }
                // Started if none runs (it restores the journal's tasks); an unknown NAME is
                // said here, before the terminal is taken.
                let client = try endpoint.connect(start: true, environment: env)
                _ = try client.request(.status(session: session))
                try Preflight.checkKeyBindings(environment: env)
                try Preflight.checkTheme(options.theme, environment: env)
                // Over ssh the checked connection is the monitor's first watch: the only one
                // that may ask for a password (the terminal is not curses' yet).
                let handed: DaemonClient? = remote == nil ? nil : client
                return await MonitorApp.attach(session, options: options, endpoint: endpoint, environment: env, connected: handed)
            case .attachMany(let targets, let options):
                guard remote == nil else { throw UsageError("attach: --host names the host of one NAME") }
                guard TransferTopMain.useMonitor(options, env) else {
                    throw UsageError("attach: several daemons, or every session of one, are shown in the monitor only "
                                     + "(a terminal, without --no-tui); follow one session with 'attach NAME' or 'wait NAME'")
                }
                // Each daemon is reached (started if none runs) and a named session checked
                // here, before the terminal is taken: ssh may ask for a password only now.
                var clients: [DaemonClient?] = []
                for target in targets {
                    let endpoint = target.host.map(DaemonEndpoint.ssh) ?? .local(paths)
                    let client: DaemonClient
                    do {
                        client = try endpoint.connect(start: true, environment: env)
                        if let session = target.session { _ = try client.request(.status(session: session)) }
                    } catch {
                        throw DaemonError("\(target.label): \(error.message)")
                    }
                    clients.append(target.host == nil ? nil : client)
                }
                try Preflight.checkKeyBindings(environment: env)
                try Preflight.checkTheme(options.theme, environment: env)
                return await MonitorApp.attach(targets, options: options, paths: paths, environment: env, connected: clients)
            case .control(let session, let action, let task):
                let client = try endpoint.connect(start: true, environment: env)
                if case .ok(let text) = try client.request(.control(session: session, task: task, action: action)) { out.line(text) }
            case .change(let session, let change, let task):
                let client = try endpoint.connect(start: true, environment: env)
                if case .ok(let text) = try client.request(.change(session: session, task: task, change: change)) { out.line(text) }
            }
            return 0
        } catch let e as DaemonError {
            out.error("transfertop: \(e.message)")
            return 1
        } catch let e as UsageError {
            out.error(e.message)
            return 2
        } catch {
            out.error("transfertop: \(error)")
            return 1
        }
    }

    /// `wait` and `attach`: the session's events as lines. `wait` ends when every task has
    /// completed (exit 0 if all succeeded, else 1, as line mode); `attach` when the session is
    /// invalidated, or at Ctrl-C (which detaches: the daemon goes on).
    static func follow(_ endpoint: DaemonEndpoint, _ session: String, untilDone: Bool, environment: [String: String],
                       line: (BackgroundEvent) -> String?) throws(DaemonError) -> Int32 {
        let client = try endpoint.connect(start: true, environment: environment)
        try client.channel.send(DaemonRequest.follow(session: session, after: 0, untilDone: untilDone))
        while let reply = try client.channel.receive(DaemonReply.self) {
            switch reply {
            case .event(let event):
                if let text = line(event) { Output.shared.line(text) }
                if !untilDone, event.kind == "invalidated" { return 0 }
            case .done(let total, let failed):
                Output.shared.line("\(session): \(total) task(s) completed, \(failed) failed")
                return failed == 0 ? 0 : 1
            case .failure(let why):
                throw DaemonError(why)
            default:
                continue
            }
        }
        throw DaemonError("the daemon went away")
    }

    static func daemonStatus(_ paths: DaemonPaths) -> Int32 {
        let client: DaemonClient
        do { client = try DaemonClient.connectAnyVersion(paths) } catch {
            if error.isNoAnswer {
                Output.shared.error("transfertop: \(error.message)")
            } else {
                Output.shared.line("no transfertop daemon is running (socket \(paths.socket))")
            }
            return 1
        }
        var summary = ""
        if case .status(let sessions)? = try? client.request(.status(session: nil)) {
            let tasks = sessions.flatMap(\.tasks)
            summary = ", \(sessions.count) session(s), \(tasks.filter { $0.state != "completed" }.count) of \(tasks.count) task(s) unfinished"
        }
        Output.shared.line("transfertop daemon running: pid \(client.daemonPID), version \(client.daemonVersion), socket \(paths.socket), journal \(paths.journal)\(summary)")
        return 0
    }

    /// `daemon stop` of a daemon that holds its lock but does not answer (stopped with
    /// Ctrl-Z, or hung): SIGTERM, which it handles as `daemon stop` (resume data kept), and
    /// SIGCONT so that a stopped one runs to handle it.
    static func stopSilentDaemon(_ pid: Int32, _ paths: DaemonPaths, _ error: DaemonError) -> Int32 {
        let out = Output.shared
        out.error("transfertop: \(error.message); sending it SIGTERM")
        kill(pid, SIGTERM)
        kill(pid, SIGCONT)
        guard DaemonClient.waitUntilGone(paths) else {
            out.line("transfertop daemon (pid \(pid)) is stopping; still saving resume data after 30 s")
            return 1
        }
        out.line("transfertop daemon (pid \(pid)) stopped; unfinished downloads kept their resume data")
        return 0
    }

    // MARK: submit

    /// `transfertop --background NAME …`: checks everything here (exit 2 for usage errors, as
    /// a local run), reads `-i` files and asks a missing `-u` password here, then hands the
    /// tasks to the daemon and prints their ids.
    static func submit(_ given: Options, environment env: [String: String]) async -> Int32 {
        let out = Output.shared
        guard let name = given.background else { return 2 }
        let prepared: (Options, DaemonEndpoint)?
        do {
            if let host = given.backgroundHost {
                prepared = try prepareRemote(given, session: name, host: host)
            } else {
                prepared = try await prepareLocal(given, environment: env)
            }
        } catch let e as UsageError {
            out.error(e.message)
            return 2
        } catch let e as DaemonError {
            out.error("transfertop: \(e.message)")  // no state directory to find the daemon by
            return 1
        } catch {
            out.error("transfertop: \(error)")
            return 2
        }
        guard let (options, endpoint) = prepared else { return 0 }
        do {
            let client = try endpoint.connect(start: true, environment: env)
            guard case .submitted(let session, let numbers) = try client.request(.submit(session: name, options: options)) else { return 1 }
            for (n, url) in zip(numbers, options.urls) { out.line("\(session):\(n) \(Redaction.redactURL(url))") }
            return 0
        } catch {
            out.error("transfertop: \(error.message)")
            return 1
        }
    }

    /// This host's daemon: the submission as the daemon needs it, or nil when every file is
    /// already complete.
    static func prepareLocal(_ given: Options, environment env: [String: String]) async throws -> (Options, DaemonEndpoint)? {
        var options = given
        try options.checkBackgroundSubmission()
        try options.askPasswordHere()
        // A file this command placed before and the server still has unchanged is skipped
        // here, as a local rerun skips it (not downloaded again as 'name (1)').
        let (plan, notes) = await AlreadyComplete.filter(try Preparation.plan(options), store: CompletionStore.standard())
        for n in notes { Output.shared.line("note: \(n)") }
        if plan.urlStrings.isEmpty {
            Output.shared.line("nothing to submit: every file is already complete")
            return nil
        }
        try options.submit(plan.urlStrings)
        options.outputDirectory = plan.outputDirectory
        options = options.withAbsolutePaths(FileManager.default.currentDirectoryPath)
        return (options, .local(try DaemonPaths.standard(env)))
    }

    /// `--background ssh://host/NAME`: the same submission, to that host's daemon through ssh.
    /// Paths are the other host's: nothing is checked on this one's disk (that daemon checks
    /// them, as it checks every submission), and each must be absolute, since this directory
    /// is not there. Lists (`-i`) are read here and their URLs travel; a file this host
    /// placed says nothing about that one's, so no "already complete" check.
    static func prepareRemote(_ given: Options, session name: String, host: String) throws -> (Options, DaemonEndpoint) {
        var options = given
        let destination = try SSHDestination.parse(host)
        try options.checkBackgroundSubmission()
        guard options.outputDirectory != nil else {
            throw UsageError("--background \(host)/\(name): name the directory on \(destination.host) with -o /ABSOLUTE/PATH "
                             + "(this directory is not there)")
        }
        try options.askPasswordHere()
        var urls = try options.urls.map { t throws(UsageError) in try URLCheck.checkURL(t).absoluteString }
        urls += try Preparation.inputFileURLs(options)
        if urls.isEmpty { throw UsageError("nothing to do: no URLs found") }
        try options.submit(urls)
        options.backgroundHost = nil
        do { try options.checkAsReceived() } catch {
            throw UsageError("--background \(host)/\(name): paths are \(destination.host)'s: \(error.message)")
        }
        return (options, .ssh(destination))
    }
}

extension Options {
    /// `-u`'s password, asked here when not given: the daemon cannot ask.
    mutating func askPasswordHere() throws {
        if let user, user.password == nil { self.user?.password = try user.credential().password }
    }

    /// The submission carries `urls` (lists already read here) and is the daemon's now.
    mutating func submit(_ urls: [String]) throws(UsageError) {
        // The daemon knows a task by its URL (downloads of one URL are merged already).
        if Set(urls).count != urls.count { throw UsageError("--background takes each URL once per submission") }
        self.urls = urls
        inputFiles = []
        background = nil
    }

    /// Every path made absolute against `cwd`: the daemon runs elsewhere.
    func withAbsolutePaths(_ cwd: String) -> Options {
        func abs(_ p: String) -> String { p.hasPrefix("/") ? p : AbsolutePath.of(p, in: cwd) }
        var o = self
        o.outputDirectory = o.outputDirectory.map(abs)
        o.caCertificate = o.caCertificate.map(abs)
        o.upload = o.upload.map(abs)
        o.cookieFiles = o.cookieFiles.map(abs)
        o.cookieJar = o.cookieJar.map(abs)
        if let file = o.netrc?.file { o.netrc?.file = abs(file) }
        if let c = o.clientCertificate {
            o.clientCertificate?.file = abs(c.file)
            o.clientCertificate?.key = c.key.map(abs)
        }
        o.form = o.form.map {
            switch $0 {
            case .value: return $0
            case .file(let name, let path, let type, let filename): return .file(name: name, path: abs(path), type: type, filename: filename)
            case .contents(let name, let path, let type): return .contents(name: name, path: abs(path), type: type)
            }
        }
        o.csv = o.csv.map(abs)
        o.har = o.har.map(abs)
        o.logFile = o.logFile.map(abs)
        o.job = o.job.map(abs)
        return o
    }
}
