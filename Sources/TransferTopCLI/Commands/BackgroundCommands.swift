import ArgumentParser
import BackgroundWire
import TransferKit
import TransferTopDaemon
import TransferTopRun
import TransferTopUI

/// What a background command asks; `BackgroundCLI` carries it out.
public enum BackgroundCommand: Sendable, Equatable {
    case status(session: String?, json: Bool)
    case wait(session: String)
    /// `options`: the monitor's own (`--no-tui`, `--theme`, `--fps`, `--yes`), nothing else.
    case attach(session: String, options: Options)
    /// `attach ssh://a ssh://b local`: several daemons' sessions in one monitor.
    case attachMany(targets: [AttachTarget], options: Options)
    case control(session: String, action: BackgroundAction, task: Int64?)
    /// `control NAME retry TASK`, `limit [TASK] RATE`, `connections N` (DECISIONS 178).
    case change(session: String, change: BackgroundChange, task: Int64?)
    case daemon(DaemonAction)
    /// `--host ssh://…` (or `attach ssh://host/NAME`): the command, answered by that host's
    /// daemon through ssh.
    indirect case onHost(SSHDestination, BackgroundCommand)
    /// `daemon dial-stdio [--no-start]`: the remote end of `--host`; `start`: start the daemon
    /// when none runs (what every remote command but the monitor's reconnections asks).
    case bridge(start: Bool)
}

public enum DaemonAction: String, Sendable, Equatable, CaseIterable {
    /// Runs the daemon in the foreground (what the on-demand start and the systemd unit run).
    case run
    case start, status, stop
    /// The remote end of `--host ssh://…`: bridges stdin/stdout to this user's daemon
    /// (`BackgroundCommand.bridge`).
    case dialStdio = "dial-stdio"
}

/// One daemon that `attach` watches: this host's (`local`) or another's (`ssh://host`), and
/// one session of it (`/NAME`) or every one.
public struct AttachTarget: Sendable, Equatable {
    public var host: SSHDestination?
    public var session: String?

    /// How the monitor names its host: `local`, or the host as given (with its port).
    public var label: String {
        guard let host else { return "local" }
        return host.port.map { "\(host.host):\($0)" } ?? host.host
    }

    /// `local`, `local/NAME`, `ssh://[user@]host[:port][/NAME]`; a bare NAME is a session of
    /// this host's daemon.
    static func parse(_ text: String) throws(UsageError) -> AttachTarget {
        if SSHDestination.isRemote(text) {
            let (host, name) = try SSHDestination.hostAndSession(text, "attach")
            return AttachTarget(host: host, session: name)
        }
        if text == "local" { return AttachTarget(host: nil, session: nil) }
        let name = text.hasPrefix("local/") ? String(text.dropFirst("local/".count)) : text
        return AttachTarget(host: nil, session: try BackgroundName.check(name, "attach"))
    }
}

extension SSHDestination {
    /// `ssh://[user@]host[:port][/NAME]` as the host alone and its session NAME (checked as any
    /// background session's name; nil when none is given). `what` begins the error messages.
    static func hostAndSession(_ text: String, _ what: String) throws(UsageError) -> (host: SSHDestination, session: String?) {
        var host: SSHDestination
        do { host = try SSHDestination.parse(text) } catch { throw UsageError("\(what): \(error.message)") }
        let name = try host.session.map { n throws(UsageError) in try BackgroundName.check(n, what) }
        host.session = nil
        return (host, name)
    }
}

/// `--host ssh://[user@]host[:port]`: the background commands' remote daemon (exit 2 when
/// the address is not one).
private func onHost(_ host: String?, _ command: BackgroundCommand, _ name: String) throws(UsageError) -> Command {
    guard let host else { return .background(command) }
    do {
        let destination = try SSHDestination.parse(host)
        guard destination.session == nil else {
            throw UsageError("\(name): --host is ssh://[user@]host[:port], without a /NAME (the session is NAME)")
        }
        return .background(.onHost(destination, command))
    } catch let e as DaemonError {
        throw UsageError("\(name): --host: \(e.message)")
    } catch let e as UsageError {
        throw e
    } catch {
        throw UsageError("\(name): --host: \(error)")
    }
}

private let hostHelp = ArgumentHelp("Another machine's daemon, through ssh (its config, agent and known_hosts apply).",
                                    valueName: "ssh://[user@]host[:port]")

/// Background commands take none of the transfer options (the root reads them anywhere).
private func noTransferOptions(_ root: TransferTopCommand, _ usage: String) throws(UsageError) {
    if try root.transfer.options(urls: []) != Options() {
        throw UsageError("'\(usage.split(separator: " ").first ?? "")' takes no transfer options (usage: transfertop \(usage))")
    }
}

struct StatusCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the background sessions and their tasks (all, or NAME).")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("A background session (default: all).", valueName: "NAME")) var session: String?
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Option(help: hostHelp) var host: String?

    func command() throws(UsageError) -> Command {
        try noTransferOptions(root, "status [NAME] [--json] [--host ssh://HOST]")
        return try onHost(host, .status(session: try session.map { v throws(UsageError) in try BackgroundName.check(v, "status") }, json: json), "status")
    }
}

struct WaitCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "wait", abstract: "Wait until every task of background session NAME has completed (exit 0 if all succeeded, 1 if not).")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("The background session.", valueName: "NAME")) var session: String
    @Option(help: hostHelp) var host: String?

    func command() throws(UsageError) -> Command {
        try noTransferOptions(root, "wait NAME [--host ssh://HOST]")
        return try onHost(host, .wait(session: try BackgroundName.check(session, "wait")), "wait")
    }
}

struct AttachCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Open the monitor on background session NAME (on a terminal; else follow its events as lines); q or Ctrl-C only detaches, the daemon's tasks go on.")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("What to watch: a background session NAME; another host's as ssh://[user@]host[:port]/NAME; every session of a host as ssh://host, or of this one as local. Several at once share one monitor, each row named host/NAME.", valueName: "TARGET")) var targets: [String] = []
    @Option(help: hostHelp) var host: String?

    func command() throws(UsageError) -> Command {
        // The monitor's options only: how it looks and whether it is used at all.
        let given = try root.transfer.options(urls: [])
        var rest = given
        (rest.noTUI, rest.theme, rest.fps, rest.yes) = (Options().noTUI, Options().theme, Options().fps, Options().yes)
        if rest != Options() {
            throw UsageError("'attach' takes no transfer options, only --no-tui, --theme, --fps and --yes "
                             + "(usage: transfertop attach NAME [--no-tui])")
        }
        guard let session = targets.first else {
            throw UsageError("attach: name what to watch (usage: transfertop attach NAME|ssh://HOST[/NAME]|local ...)")
        }
        let first = try AttachTarget.parse(session)
        // One session: of this host's daemon, or of the host named as `docker -H ssh://` names
        // a remote engine (`attach ssh://host/NAME`).
        if targets.count == 1, !session.hasPrefix("local/"), let name = first.session {
            guard let remote = first.host else { return try onHost(host, .attach(session: name, options: given), "attach") }
            guard host == nil else { throw UsageError("attach: give the host once, as ssh://host/NAME or with --host") }
            return .background(.onHost(remote, .attach(session: name, options: given)))
        }
        // Several daemons, or every session of one: one monitor over each (`attachMany`).
        guard host == nil else {
            throw UsageError("attach: --host names the host of one NAME; give each target as ssh://host[/NAME] or local[/NAME]")
        }
        var parsed = [first]
        for t in targets.dropFirst() { parsed.append(try AttachTarget.parse(t)) }
        return .background(.attachMany(targets: parsed, options: given))
    }
}

struct ControlCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Act on a background task, or on every task of the session: suspend, resume, cancel-with-resume-data, cancel, or invalidate the session (the monitor's s, r, d, c and X); retry TASK, limit [TASK] RATE, connections N (a, l and L, + and -).")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("The background session.", valueName: "NAME")) var session: String
    @Argument(help: ArgumentHelp("suspend, resume, cancel-with-resume-data, cancel, invalidate, retry, limit or connections.", valueName: "ACTION")) var action: String
    @Argument(help: ArgumentHelp("The task number (from --background or status; default: every unfinished task); for connections, the connections per host; for limit without a task, the RATE.", valueName: "TASK")) var task: String?
    @Argument(help: ArgumentHelp("For limit TASK RATE: bytes per second, with K, M or G (500K, 2M), 0 for none.", valueName: "RATE")) var rate: String?
    @Option(help: hostHelp) var host: String?

    static let usage = "control NAME ACTION [TASK] [--host ssh://HOST]; control NAME limit [TASK] RATE; control NAME connections N"

    func command() throws(UsageError) -> Command {
        try noTransferOptions(root, Self.usage)
        let name = try BackgroundName.check(session, "control")
        switch action {
        case "retry", "limit", "connections": return try onHost(host, .change(session: name, change: try change(), task: try changedTask()), "control")
        default: break
        }
        let names: [String: BackgroundAction] = ["suspend": .suspend, "resume": .resume, "cancel-with-resume-data": .cancelWithResumeData,
                                                  "cancel": .cancel, "invalidate": .invalidate]
        guard let a = names[action] else {
            throw UsageError("control: ACTION is suspend, resume, cancel-with-resume-data, cancel, invalidate, retry, limit or connections, not '\(SafeQuote.quote(action, limit: 30))'")
        }
        guard rate == nil else { throw UsageError("control: \(action) takes at most a TASK, not '\(SafeQuote.quote(rate ?? "", limit: 30))' after it") }
        var number: Int64? = nil
        if let task {
            number = try Self.taskNumber(task)
            guard a != .invalidate else { throw UsageError("control: invalidate acts on the whole session; give no TASK") }
        }
        return try onHost(host, .control(session: name, action: a, task: number), "control")
    }

    static func taskNumber(_ text: String) throws(UsageError) -> Int64 {
        guard let n = Int64(text), n >= 1 else { throw UsageError("control: TASK is a task number (1, 2, ...), not '\(SafeQuote.quote(text, limit: 30))'") }
        return n
    }

    /// What `retry`, `limit` and `connections` ask, checked here (exit 2 before any daemon).
    private func change() throws(UsageError) -> BackgroundChange {
        switch action {
        case "retry":
            guard task != nil else { throw UsageError("control: retry takes the TASK to retry: control NAME retry TASK") }
            guard rate == nil else { throw UsageError("control: retry takes one TASK") }
            return .retry
        case "limit":
            guard let text = rate ?? task else { throw UsageError("control: limit takes a RATE: control NAME limit [TASK] RATE (500K, 2M, 0 for none)") }
            // `limit 2` alone reads as "task 2" forgotten its rate far more often than as 2 bytes/s.
            if rate == nil, text != "0", text.allSatisfy(\.isNumber) {
                throw UsageError("control: limit '\(text)' is ambiguous: give the session's RATE with a unit (2M, 500K) or TASK RATE")
            }
            guard let bytes = RateText.parse(text) else { throw UsageError("control: \(RateText.refusal(text))") }
            return .rateLimit(bytes)
        default:
            guard let text = task, let n = Int(text), (1...OptionBounds.connectionsPerHost.upperBound).contains(n) else {
                throw UsageError("control: connections takes a number of connections per host from 1 to \(OptionBounds.connectionsPerHost.upperBound), not '\(SafeQuote.quote(task ?? "", limit: 30))'")
            }
            guard rate == nil else { throw UsageError("control: connections takes one number") }
            return .connectionsPerHost(n)
        }
    }

    /// The task a change is for: retry's TASK, limit's TASK when a RATE follows it.
    private func changedTask() throws(UsageError) -> Int64? {
        switch action {
        case "retry", "limit":
            guard let task, action == "retry" || rate != nil else { return nil }
            return try Self.taskNumber(task)
        default: return nil
        }
    }
}

struct DaemonCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "The background daemon: run (in the foreground, as the systemd unit does), start, status, stop (which keeps resume data), or dial-stdio (what --host ssh:// runs on the other host).")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("run, start, status, stop or dial-stdio (default: run).", valueName: "ACTION")) var action: String?
    @Flag(help: "With dial-stdio: only a daemon that runs answers; none is started (the monitor's reconnections).")
    var noStart = false

    func command() throws(UsageError) -> Command {
        try noTransferOptions(root, "daemon [run|start|status|stop|dial-stdio [--no-start]]")
        guard let a = DaemonAction(rawValue: action ?? "run") else {
            throw UsageError("daemon: ACTION is run, start, status, stop or dial-stdio, not '\(SafeQuote.quote(action ?? "", limit: 30))'")
        }
        if a == .dialStdio { return .background(.bridge(start: !noStart)) }
        guard !noStart else { throw UsageError("daemon: --no-start goes with dial-stdio only") }
        return .background(.daemon(a))
    }
}
