import ArgumentParser
import TransferTopRun

/// `transfertop demo [OPTIONS]`: the offline demonstration (`Demo`). It takes the root's
/// monitor options (`--no-tui`, `--fps`, `--theme`, `--csv`, `--har`) but no URLs.
struct DemoCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Offline demonstration on an embedded loopback server.",
        discussion: "Takes the options of 'transfertop --help' such as --no-tui, --fps and --theme, but no URLs.")

    @ParentCommand var root: TransferTopCommand

    /// Read only to refuse it with our message (argument-parser's would be "unexpected argument").
    @Argument(help: .private) var urls: [String] = []

    func command() throws(UsageError) -> Command {
        if !urls.isEmpty { throw UsageError("'demo' takes no URLs") }
        let o = try root.transfer.options(urls: [])
        if o.job != nil || !o.inputFiles.isEmpty { throw UsageError("'demo' cannot be combined with --job or --input-file") }
        return .demo(o)
    }
}
