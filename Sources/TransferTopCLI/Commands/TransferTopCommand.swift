import ArgumentParser
import TransferTopRun

/// `transfertop`: the root of the command tree. argument-parser reads the command line, writes
/// `--help`, `--version`, the completion scripts and the man page from these declarations.
///
/// The transfer options live here, on the root, so `transfertop --help` lists them and they
/// may come anywhere on the line; the URLs belong to `run`, the default subcommand (the root
/// cannot take positional URLs itself: argument-parser would read `demo` as a URL).
///
/// Adding a subcommand (`daemon`, `status`, `wait`, `attach`, …): one file in `Commands/`
/// with a `ParsableCommand` that also conforms to `CommandPlanning`, listed in `subcommands`
/// below, a case in `Command`, its line in `TransferTopMain` and its name in
/// `QuickRunLine.commandWords`. Its own options must not reuse a root option's name: the root
/// reads those wherever they stand. A new transfer option also needs its line in
/// `QuickRunLine.spellings` (DECISIONS 198).
/// DECISIONS 35.
public struct TransferTopCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "transfertop",
        abstract: "A terminal transfer monitor over TransferKit.",
        // One line each, so the usage fits 80 columns; SUBCOMMANDS below says what they do.
        usage: """
        transfertop [OPTIONS] [URL ...]
        transfertop demo [OPTIONS]
        transfertop clean [DIR] [--yes]
        transfertop compare BEFORE.csv AFTER.csv [--threshold PERCENT]
        transfertop report RUN.csv [AFTER.csv] [-o FILE] [--format html|text]
        transfertop --background NAME [OPTIONS] [URL ...]
        transfertop status|wait|attach|control|daemon ...
        """,
        discussion: HelpDiscussion.text,
        version: VersionInfo.versionLine,
        subcommands: [RunCommand.self, DemoCommand.self, CleanCommand.self, CompareCommand.self, ReportCommand.self, StatusCommand.self, WaitCommand.self,
                      AttachCommand.self, ControlCommand.self, DaemonCommand.self],
        defaultSubcommand: RunCommand.self)

    @OptionGroup(title: "Transfer options")
    var transfer: TransferOptions

    public init() {}
}

/// A command that, once parsed, says what to do: a `Command` checked to our rules (a
/// `UsageError`, exit 2, otherwise). Checks live here rather than in argument-parser's
/// `validate()` so that the typed error and its exact message reach `TransferTopMain`.
protocol CommandPlanning: ParsableCommand {
    func command() throws(UsageError) -> Command
}

/// The prose of `transfertop --help` after the synopsis.
enum HelpDiscussion {
    static let text = """
    Exit status: 0 when every task completed with a 2xx response, 1 when any failed or was \
    cancelled, 2 for usage errors, 3 when a --slo budget was breached (it wins over 1). \
    'compare' exits 1 when a run got slower; 'compare' and 'report' exit 2 for a file \
    that is not a run's export.

    Interrupting keeps work: q in the monitor or Ctrl-C/SIGTERM cancels running downloads with \
    resume data (kept under $XDG_STATE_HOME/transfertop/resume); running the same command again \
    resumes them. Finished files are never touched again: a rerun skips a file it placed before \
    when the server still has the same size and validator ("already complete"); another \
    existing file of the same name is kept and the new one saved as 'name (1)'.

    In the monitor press ? for the keys (s suspend, r resume, c cancel, d keep resume data, \
    R continue, f finish session, X kill session, n new task, N new session, e export CSV, \
    t theme, / filter, q quit). NO_COLOR disables colour.
    """
}
