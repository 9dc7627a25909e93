/// The report's tables for a terminal (`report --format text`): the run line, the per-host
/// percentile table of `--summary hosts`, the slowest hops, the errors and, with two runs,
/// `compare`'s table. Lines are plain text; the CLI makes them safe for the terminal.
public enum ReportText {
    public static func lines(_ r: RunReport) -> [String] {
        var out = ["\(r.name): \(r.hopCount) hops in \(r.taskCount) tasks over \(EvidenceFormat.duration(r.spanMs)), "
                   + "\(r.errorCount) error\(r.errorCount == 1 ? "" : "s")", ""]
        out += EvidenceFormat.table(r.statistics)
        out += ["", "SLOWEST HOPS", row(["TOTAL", "TTFB", "STATUS", "PROTO", "TASK", "URL"])]
        for hop in r.slowest {
            out.append(row([EvidenceFormat.duration(hop.barMs), EvidenceFormat.duration(hop.ttfbMs),
                            hop.status.map(String.init) ?? "-", hop.protocolName, "\(hop.task)#\(hop.hop ?? 0)", hop.url]))
        }
        out += ["", "ERRORS (\(r.errorCount))"]
        if r.errorCount > r.errors.count { out.append("  the first \(r.errors.count) in the file's order") }
        for hop in r.errors {
            out.append("  \(hop.task)#\(hop.hop.map(String.init) ?? "-")  \(hop.status.map(String.init) ?? "-")  "
                       + "\(hop.error ?? "HTTP \(hop.status ?? 0)")  \(hop.url)")
        }
        if let c = r.comparison {
            out += ["", "COMPARE \(r.name) → \(r.comparedName ?? "")"]
            out += c.table()
        }
        return out
    }

    /// `  TOTAL      TTFB  STATUS  PROTO     TASK     URL`: the URL last, as long as it is.
    static func row(_ c: [String]) -> String {
        func right(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        return "  " + right(c[0], 8) + right(c[1], 10) + right(c[2], 8) + "  " + c[3].padding(toLength: 9, withPad: " ", startingAt: 0)
            + c[4].padding(toLength: 9, withPad: " ", startingAt: 0) + c[5]
    }
}
