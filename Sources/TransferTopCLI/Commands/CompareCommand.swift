import TransferTopRun
import ArgumentParser
import Foundation
import RunEvidence
import TransferModel

/// `transfertop compare BEFORE.csv AFTER.csv`: two runs' `--csv` (or `--har`) exports side by side, per
/// host and phase: p50 and p90 of each, their change, the Mann–Whitney p and a verdict
/// (DECISIONS 192). Exit 1 when a row is slower beyond the threshold, 2 for a bad file.
struct CompareCommand: ParsableCommand, CommandPlanning {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two runs' --csv (or --har) exports per host and phase; exit 1 on a regression.",
        discussion: """
        A row is 'slower' (or 'faster') when the Mann-Whitney U test finds the two runs differ \
        (p below --alpha) and the median moved by more than --threshold and by at least \
        --min-change; 'too few' when a side has fewer than 8 samples. Exit status: 0 no \
        regression, 1 a slower row, 2 a file that is not a transfertop --csv or --har export.
        """)

    @ParentCommand var root: TransferTopCommand

    @Argument(help: ArgumentHelp("The earlier run's --csv (or --har) export.", valueName: "BEFORE.csv"), completion: .file(extensions: ["csv", "har"]))
    var before: String

    @Argument(help: ArgumentHelp("The later run's --csv (or --har) export.", valueName: "AFTER.csv"), completion: .file(extensions: ["csv", "har"]))
    var after: String

    @Option(parsing: .unconditional, help: ArgumentHelp("The smallest change of the median that counts, in percent (default: 10).", valueName: "PERCENT"))
    var threshold: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The significance level of the test (default: 0.01).", valueName: "P"))
    var alpha: String?

    @Option(name: .customLong("min-change"), parsing: .unconditional,
            help: ArgumentHelp("The smallest change of the median that counts, in milliseconds (default: 1).", valueName: "MS"))
    var minChange: String?

    func command() throws(UsageError) -> Command {
        // The root reads transfer options wherever they stand; here they would mean nothing.
        if try root.transfer.options(urls: []) != Options() {
            throw UsageError("'compare' takes no transfer options (usage: transfertop compare BEFORE.csv AFTER.csv [--threshold PERCENT])")
        }
        var settings = RunComparison.Settings()
        if let v = threshold { settings.threshold = try Self.number(v, "--threshold", 0...1000, percent: true) / 100 }
        if let v = alpha { settings.alpha = try Self.number(v, "--alpha", 0...1) }
        if let v = minChange { settings.minimumChangeMs = try Self.number(v, "--min-change", 0...3_600_000) }
        if settings.alpha == 0 || settings.alpha == 1 { throw UsageError("--alpha must be between 0 and 1 (exclusive), not '\(SafeQuote.quote(alpha ?? ""))'") }
        return .compare(CompareRequest(before: before, after: after, settings: settings))
    }

    static func number(_ v: String, _ option: String, _ range: ClosedRange<Double>, percent: Bool = false) throws(UsageError) -> Double {
        let text = percent && v.hasSuffix("%") ? String(v.dropLast()) : v
        guard let d = Double(text), d.isFinite, range.contains(d) else {
            throw UsageError("\(option) must be a number from \(Budget.number(range.lowerBound)) to \(Budget.number(range.upperBound)), not '\(SafeQuote.quote(v, limit: 20))'")
        }
        return d
    }

    /// Reads both files, prints the table and a verdict line, returns the exit status.
    static func execute(_ request: CompareRequest, out: Output = .shared) -> Int32 {
        var runs: [[HopSample]] = []
        for file in [request.before, request.after] {
            do {
                let text = try TextFile.read(file, "CSV export")
                runs.append(try RunFile.hops(text, name: "'\(SafeQuote.quote(file))'").map(\.sample))
            } catch let e as UsageError {
                out.error(e.message)
                return 2
            } catch let e as CSVRun.ReadError {
                out.error(UsageError(TerminalText.safe(e.reason)).message)
                return 2
            } catch {
                out.error("transfertop: \(error)")
                return 2
            }
        }
        let comparison = RunComparison(before: runs[0], after: runs[1], settings: request.settings)
        let s = request.settings
        out.line("before: \(TerminalText.safe(request.before)) (\(runs[0].count) hops), after: \(TerminalText.safe(request.after)) (\(runs[1].count) hops)")
        out.line(String(format: "a change counts past %g%% and %gms of the median at p < %g (Mann-Whitney U)",
                        s.threshold * 100, s.minimumChangeMs, s.alpha))
        out.line("")
        for line in comparison.table() { out.line(TerminalText.safe(line)) }
        let slower = comparison.rows.filter { $0.verdict == .slower }
        let faster = comparison.rows.count { $0.verdict == .faster }
        out.line("")
        out.line("\(comparison.rows.count) rows: \(slower.count) slower, \(faster) faster, "
                 + "\(comparison.rows.count - slower.count - faster) no change or too few samples")
        for r in slower { out.error("transfertop: regression: \(TerminalText.safe(r.host)) \(r.phase.rawValue) is slower") }
        return comparison.hasRegression ? 1 : 0
    }
}

/// What `compare` was asked.
public struct CompareRequest: Sendable, Equatable {
    public var before: String
    public var after: String
    public var settings: RunComparison.Settings
}
