import ArgumentParser
import Foundation
import RunEvidence
import TransferModel
import TransferTopRun
import TransferTopUI

/// `transfertop report RUN.csv|RUN.har [AFTER.csv|.har] [-o FILE] [--format html|text]`: a
/// run's export as one self-contained HTML page (waterfall, per-host percentiles and
/// histograms, slowest hops, errors; with a second run, compare's table) or the same tables
/// as text. docs/report.md. Exit 0, or 2 for a file that cannot be read or written.
struct ReportCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a run's --csv or --har export as an HTML report (or its tables as text).",
        discussion: """
        The page is one file with no outside resources: a waterfall of every hop (past 1000 \
        hops, the tasks of the slowest and an even sample; the page says so), zoomable by \
        time range; per-host percentiles and histograms; the slowest hops; the errors. With \
        AFTER, compare's table of the two runs too. -o FILE writes it to FILE (an existing \
        file only with --force), otherwise to stdout. The phase colours are the theme's \
        (--theme). Exit status: 0 written, 2 a file that cannot be read, is not an export, \
        or cannot be written.
        """)

    @ParentCommand var root: TransferTopCommand

    @Argument(help: ArgumentHelp("The run's --csv or --har export.", valueName: "RUN.csv|RUN.har"), completion: .file(extensions: ["csv", "har"]))
    var run: String

    @Argument(help: ArgumentHelp("A later run's export, to compare with.", valueName: "AFTER.csv|AFTER.har"), completion: .file(extensions: ["csv", "har"]))
    var after: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("html (the default) or text.", valueName: "FORMAT"))
    var format: String?

    func command() throws(UsageError) -> Command {
        // The root reads its options wherever they stand: `-o`, `--theme` and `--force` mean
        // the report's file, its colours and replacing it; the others mean nothing here.
        var options = try root.transfer.options(urls: [])
        let request = ReportRequest(run: run, after: after, output: options.outputDirectory,
                                    text: try Self.isText(format), theme: options.theme, force: options.force)
        options.outputDirectory = nil
        options.theme = Options().theme
        options.force = false
        if options != Options() {
            throw UsageError("'report' takes no transfer options (usage: transfertop report RUN.csv [AFTER.csv] [-o FILE] [--format html|text])")
        }
        return .report(request)
    }

    static func isText(_ format: String?) throws(UsageError) -> Bool {
        switch format {
        case nil, "html": return false
        case "text": return true
        case let f?: throw UsageError("--format must be html or text, not '\(SafeQuote.quote(f, limit: 20))'")
        }
    }

    /// Reads the export(s), writes the report, returns the exit status.
    static func execute(_ request: ReportRequest, environment: [String: String], out: Output = .shared) -> Int32 {
        do {
            let palette = try Self.palette(request.theme, environment: environment)
            if let output = request.output, output != "-" { try checkOutput(output, request) }
            let before = try read(request.run)
            let after = try request.after.map { ($0, try read($0)) }
            let report = RunReport(name: request.run, hops: before, compareWith: after)
            if request.text {
                let text = ReportText.lines(report).map { TerminalText.safe($0) }.joined(separator: "\n") + "\n"
                return emit(text, request, out: out)
            }
            return emit(ReportHTML.page(report, palette: palette, generator: "transfertop \(VersionInfo.version)"), request, out: out)
        } catch let e as UsageError {
            out.error(e.message)
        } catch let e as CSVRun.ReadError {
            out.error(UsageError(TerminalText.safe(e.reason)).message)
        } catch {
            out.error("transfertop: \(error)")
        }
        return 2
    }

    static func read(_ file: String) throws -> [ReportHop] {
        try RunFile.hops(try TextFile.read(file, "run export"), name: "'\(SafeQuote.quote(file))'")
    }

    /// Refused before any reading: an existing file without --force, a directory, or the
    /// report written over the export it is made from.
    static func checkOutput(_ output: String, _ request: ReportRequest) throws(UsageError) {
        let shown = SafeQuote.quote(output)
        let target = URL(fileURLWithPath: output).standardizedFileURL.path
        if ([request.run] + (request.after.map { [$0] } ?? [])).contains(where: { URL(fileURLWithPath: $0).standardizedFileURL.path == target }) {
            throw UsageError("-o '\(shown)' is the export the report is made from")
        }
        // `-o /dev/stdout` or a pipe is written into, as a run's exports are.
        if try Preflight.isWritableStream(Preflight.absolutePath(output), "-o '\(shown)'") { return }
        try Preflight.refuseSocket(output, "-o '\(shown)'")
        try Preflight.refuseExisting(output, "-o '\(shown)'", force: request.force)
    }

    static func emit(_ text: String, _ request: ReportRequest, out: Output) -> Int32 {
        guard let output = request.output, output != "-" else {
            out.write(text, fd: STDOUT_FILENO)
            return out.hasLostStdout ? 2 : 0  // "the report cannot be written" (finalStatus says why)
        }
        let problems = Exports.write(text, to: output, replace: request.force)
        for p in problems { out.error("transfertop: " + TerminalText.safe(p)) }
        return problems.isEmpty ? 0 : 2
    }

    /// The theme's phase and text roles as CSS colours (a bad theme is a usage error, as for
    /// a run). The page's background is dark when the theme's text is light, and white
    /// otherwise, as the terminal the theme was made for would be.
    static func palette(_ theme: String, environment: [String: String]) throws(UsageError) -> ReportPalette {
        try Preflight.checkTheme(theme, environment: environment)
        let locator = ThemeLocator(environment: environment, executablePath: Preflight.executablePath(),
                                   currentDirectory: FileManager.default.currentDirectoryPath)
        return palette(ThemeLoader.load(theme, locator: locator).theme)
    }

    static func palette(_ t: Theme) -> ReportPalette {
        let roles: [HopPart: StyleRole] = [.queued: .phaseQueued, .dns: .phaseDNS, .connect: .phaseConnect, .tls: .phaseTLS,
                                                  .request: .phaseRequest, .wait: .phaseWait, .receive: .phaseReceive]
        let text = rgb(t[.text].foreground) ?? (248, 248, 242)
        let light = (299 * text.0 + 587 * text.1 + 114 * text.2) / 1000 > 128
        return ReportPalette(parts: roles.mapValues { css(t[$0].foreground, light: light) },
                             text: css(t[.text].foreground, light: light), dim: css(t[.dim].foreground, light: light),
                             title: css(t[.title].foreground, light: light), border: css(t[.border].foreground, light: light),
                             error: css(t[.error].foreground, light: light), background: light ? "#282a36" : "#ffffff")
    }

    /// `#rrggbb` of a theme colour; the terminal's own colour (`default`) is the text colour
    /// of the page's background.
    static func css(_ c: ThemeColor, light: Bool) -> String {
        let (r, g, b) = rgb(c) ?? (light ? (248, 248, 242) : (40, 42, 54))
        return String(format: "#%02x%02x%02x", r, g, b)
    }

    /// A theme colour's RGB: its own, or xterm's default for a palette index (`ColorFallback`,
    /// the monitor's own table); nil for the terminal's default colour.
    static func rgb(_ c: ThemeColor) -> (Int, Int, Int)? {
        switch c {
        case .default: return nil
        case .rgb(let r, let g, let b): return (Int(r), Int(g), Int(b))
        case .ansi(let i): return ColorFallback.rgb(ofIndex: max(0, min(15, i)))
        case .indexed(let i): return ColorFallback.rgb(ofIndex: max(0, min(255, i)))
        }
    }
}

/// What `report` was asked.
public struct ReportRequest: Sendable, Equatable {
    public var run: String
    public var after: String?
    /// `-o`: the report's file; nil or `-` for stdout.
    public var output: String?
    public var text: Bool
    public var theme: String
    public var force: Bool
}
