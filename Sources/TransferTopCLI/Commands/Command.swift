import TransferTopRun
/// What the user asked for, once argument-parser has read the command line and the
/// commands in `Commands/` have checked it.
public enum Command: Sendable, Equatable {
    case run(Options)
    case demo(Options)
    /// `--help`, `--version`, `--generate-completion-script SHELL`, `--experimental-dump-help`:
    /// text for stdout, exit 0.
    case print(String)
    /// `transfertop clean [DIR] [--yes]`: list (or delete) stale partial downloads.
    case clean(directory: String?, delete: Bool)
    /// `transfertop compare BEFORE.csv AFTER.csv`: two runs' exports per host and phase.
    case compare(CompareRequest)
    /// `transfertop report RUN [AFTER] [-o FILE] [--format html|text]`: a run's export as a report.
    case report(ReportRequest)
    /// `status`, `wait`, `attach`, `control` and `daemon`.
    case background(BackgroundCommand)
}
