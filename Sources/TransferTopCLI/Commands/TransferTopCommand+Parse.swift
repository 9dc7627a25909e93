import ArgumentParser
import TransferTopRun

extension TransferTopCommand {
    /// What `arguments` (without the program name) ask for. A plain run is read by
    /// `QuickRunLine`, anything else by argument-parser, whose answer this maps onto ours: help,
    /// version and completion scripts come back as `.print` (exit 0), every problem as a
    /// one-line `UsageError` (exit 2 — argument-parser would exit 64 and print its usage
    /// block). `columns` fixes the help's width (tests).
    public static func command(from arguments: [String], columns: Int? = nil) throws(UsageError) -> Command {
        if let (values, urls) = QuickRunLine.read(arguments) { return try RunCommand.command(values, urls: urls) }
        return try parsedCommand(from: arguments, columns: columns)
    }

    /// What argument-parser makes of `arguments`: every command line `QuickRunLine` leaves.
    static func parsedCommand(from arguments: [String], columns: Int? = nil) throws(UsageError) -> Command {
        do {
            var parsed = try parseAsRoot(arguments)
            if let planning = parsed as? any CommandPlanning { return try planning.command() }
            // argument-parser's own commands (`transfertop help demo`) answer by throwing
            // a clean exit from `run()`.
            try parsed.run()
            throw UsageError("nothing to do")
        } catch let error as UsageError {
            throw error
        } catch {
            if exitCode(for: error) == .success {
                if let group = ParserMessage.strayHelpGroup(in: arguments) {
                    throw UsageError("unknown option '\(ParserMessage.shown(group))'")
                }
                return .print(helpText(fullMessage(for: error, columns: columns), arguments: arguments, columns: columns))
            }
            throw UsageError(ParserMessage.oneLine(message(for: error), arguments: arguments))
        }
    }

    /// `transfertop URL --help` reaches `run`, the default subcommand, whose own help has only
    /// the URLs: show the root's, with every option, unless `run` was named.
    static func helpText(_ text: String, arguments: [String], columns: Int?) -> String {
        guard !arguments.contains("run"), text == helpMessage(for: RunCommand.self, columns: columns) else { return text }
        return helpMessage(columns: columns)
    }
}
