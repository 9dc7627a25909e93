import ArgumentParser
import BackgroundWire
import TransferKit
import TransferTopDaemon
import TransferTopRun

/// What a background command asks; `BackgroundCLI` carries it out.
public enum BackgroundCommand: Sendable, Equatable {
    case status(session: String?, json: Bool)
    case wait(session: String)
    /// `options`: the monitor's own (`--no-tui`, `--theme`, `--fps`, `--yes`), nothing else.
    case attach(session: String, options: Options)
    case control(session: String, action: BackgroundAction, task: Int64?)
    case daemon(DaemonAction)
}

public enum DaemonAction: String, Sendable, Equatable, CaseIterable {
    /// Runs the daemon in the foreground (what the on-demand start and the systemd unit run).
    case run
    case start, status, stop
}

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

    func command() throws(UsageError) -> Command {
        try noTransferOptions(root, "status [NAME] [--json]")
        return .background(.status(session: try session.map { v throws(UsageError) in try BackgroundName.check(v, "status") }, json: json))
    }
}

struct WaitCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "wait", abstract: "Wait until every task of background session NAME has completed (exit 0 if all succeeded, 1 if not).")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("The background session.", valueName: "NAME")) var session: String

    func command() throws(UsageError) -> Command {
        try noTransferOptions(root, "wait NAME")
        return .background(.wait(session: try BackgroundName.check(session, "wait")))
    }
}

struct AttachCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Open the monitor on background session NAME (on a terminal; else follow its events as lines); q or Ctrl-C only detaches, the daemon's tasks go on.")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("The background session.", valueName: "NAME")) var session: String

    func command() throws(UsageError) -> Command {
        // The monitor's options only: how it looks and whether it is used at all.
        let given = try root.transfer.options(urls: [])
        var rest = given
        (rest.noTUI, rest.theme, rest.fps, rest.yes) = (Options().noTUI, Options().theme, Options().fps, Options().yes)
        if rest != Options() {
            throw UsageError("'attach' takes no transfer options, only --no-tui, --theme, --fps and --yes "
                             + "(usage: transfertop attach NAME [--no-tui])")
        }
        return .background(.attach(session: try BackgroundName.check(session, "attach"), options: given))
    }
}

struct ControlCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Act on a background task, or on every task of the session: suspend, resume, cancel-with-resume-data, cancel, or invalidate the session (the monitor's s, r, d, c and X).")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("The background session.", valueName: "NAME")) var session: String
    @Argument(help: ArgumentHelp("suspend, resume, cancel-with-resume-data, cancel or invalidate.", valueName: "ACTION")) var action: String
    @Argument(help: ArgumentHelp("The task number (from --background or status; default: every unfinished task).", valueName: "TASK")) var task: String?

    func command() throws(UsageError) -> Command {
        try noTransferOptions(root, "control NAME ACTION [TASK]")
        let names: [String: BackgroundAction] = ["suspend": .suspend, "resume": .resume, "cancel-with-resume-data": .cancelWithResumeData,
                                                  "cancel": .cancel, "invalidate": .invalidate]
        guard let a = names[action] else {
            throw UsageError("control: ACTION is suspend, resume, cancel-with-resume-data, cancel or invalidate, not '\(SafeQuote.quote(action, limit: 30))'")
        }
        var number: Int64? = nil
        if let task {
            guard let n = Int64(task), n >= 1 else { throw UsageError("control: TASK is a task number (1, 2, ...), not '\(SafeQuote.quote(task, limit: 30))'") }
            guard a != .invalidate else { throw UsageError("control: invalidate acts on the whole session; give no TASK") }
            number = n
        }
        return .background(.control(session: try BackgroundName.check(session, "control"), action: a, task: number))
    }
}

struct DaemonCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "The background daemon: run (in the foreground, as the systemd unit does), start, status or stop (which keeps resume data).")
    @ParentCommand var root: TransferTopCommand
    @Argument(help: ArgumentHelp("run, start, status or stop (default: run).", valueName: "ACTION")) var action: String?

    func command() throws(UsageError) -> Command {
        try noTransferOptions(root, "daemon [run|start|status|stop]")
        guard let a = DaemonAction(rawValue: action ?? "run") else {
            throw UsageError("daemon: ACTION is run, start, status or stop, not '\(SafeQuote.quote(action ?? "", limit: 30))'")
        }
        return .background(.daemon(a))
    }
}
