import ArgumentParser
import TransferTopRun

/// `transfertop [run] [OPTIONS] [URL ...]`: the default subcommand, so `transfertop URL` is
/// `transfertop run URL`. It holds only the URLs; the options are the root's.
struct RunCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Download the URLs (the default: 'transfertop URL' is 'transfertop run URL').",
        discussion: "It takes the transfer options of 'transfertop --help', before or after the URLs.")

    @ParentCommand var root: TransferTopCommand

    @Argument(help: ArgumentHelp("Each URL (http, https, ftp, ftps, file or data:) becomes a download task in one session.",
                                 valueName: "URL"))
    var urls: [String] = []

    func command() throws(UsageError) -> Command { try Self.command(root.transfer.values, urls: urls) }

    /// A run of `urls` with these options, checked: argument-parser's reading and
    /// `QuickRunLine`'s both end here.
    static func command(_ values: TransferValues, urls: [String]) throws(UsageError) -> Command {
        let o = try values.options(urls: urls)
        if o.urls.isEmpty, o.inputFiles.isEmpty, o.job == nil {
            throw UsageError("no URLs given (pass URLs, --input-file FILE, --job FILE, or 'demo')")
        }
        if o.job != nil, o.upload != nil { throw UsageError("--upload cannot be combined with --job (put uploads in the job file)") }
        if o.inputFiles.filter({ $0 == "-" }).count > 1 { throw UsageError("'-' (stdin) can be given to --input-file only once") }
        for url in o.urls { try URLCheck.checkURL(url) }
        for h in o.headers { _ = try HeaderParsing.parse(h) }
        return .run(o)
    }
}
