import ArgumentParser
import Foundation
import TransferKit
import TransferTopRun

/// `transfertop clean [DIR] [--yes]`: partial downloads (`.NAME.ttpart`) left in
/// DIR by a run that was killed. A partial that a running transfertop is writing is locked
/// (`flock`) and never listed. Dry run by default; `--yes` deletes.
struct CleanCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "List partial downloads left in DIR by killed runs; --yes deletes them.",
        discussion: "Partials that a running transfertop is writing are locked and never listed.")

    @ParentCommand var root: TransferTopCommand

    @Argument(help: ArgumentHelp("The directory to look in (default: the current directory).", valueName: "DIR"), completion: .directory)
    var directory: String?

    @Flag(name: [.customShort("y"), .customLong("yes")], help: "Delete the partials instead of listing them.")
    var delete = false

    func command() throws(UsageError) -> Command {
        // The root reads transfer options wherever they stand; here they would mean nothing.
        // `--yes` is also the monitor's "do not ask" flag, which the root reads first.
        var options = try root.transfer.options(urls: [])
        let yes = options.yes
        options.yes = false
        if options != Options() {
            throw UsageError("'clean' takes no transfer options (usage: transfertop clean [DIR] [--yes])")
        }
        return .clean(directory: directory, delete: delete || yes)
    }

    static func execute(directory: String?, delete: Bool) -> Int32 {
        let dir = directory ?? FileManager.default.currentDirectoryPath
        // Names are shown escaped (TerminalText.safe): a file's name is anybody's text.
        let shownDir = TerminalText.safe(dir)
        guard let stale = StalePartials.list(in: dir) else {
            Output.shared.error("transfertop: cannot read directory '\(shownDir)'")
            return 1
        }
        for p in stale {
            let what = delete ? (unlink(dir + "/" + p.name) == 0 ? "deleted" : "could not delete") : "stale"
            Output.shared.line("\(what) \(shownDir)/\(TerminalText.safe(p.name))  (\(p.size) bytes, for \(TerminalText.safe(p.finalName)))")
        }
        let total = stale.reduce(Int64(0)) { $0 + $1.size }
        if stale.isEmpty {
            Output.shared.line("no stale partial downloads in \(shownDir)")
        } else if !delete {
            Output.shared.line("\(stale.count) stale partial download(s), \(total) bytes; 'transfertop clean \(shownDir) --yes' deletes them")
        }
        return 0
    }
}
