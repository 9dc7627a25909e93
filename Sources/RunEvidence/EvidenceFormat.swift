import Foundation
import TransferModel

/// The per-host percentile table (at most 80 columns) and its JSON twin.
public enum EvidenceFormat {
    /// The percentiles of the table and of the JSON.
    public static let percentiles: [Double] = [50, 90, 99]
    public static let width = 80

    /// A duration in at most 8 characters: `0.123ms`, `12.3ms`, `1234ms`, `12.35s`, `1234s`.
    public static func duration(_ ms: Double?) -> String {
        guard let ms else { return "-" }
        if ms < 10 { return String(format: "%.3fms", ms) }
        if ms < 100 { return String(format: "%.2fms", ms) }
        if ms < 10_000 { return String(format: "%.1fms", ms).replacingOccurrences(of: ".0ms", with: "ms") }
        if ms < 1_000_000 { return String(format: "%.2fs", ms / 1000) }
        return String(format: "%.0fs", ms / 1000)
    }

    /// Per host and protocol: a line naming it with its hops and errors, then one row per
    /// phase (samples, p50, p90, p99, max). A phase that never happened shows `-`, not 0.
    public static func table(_ stats: RunStatistics) -> [String] {
        var lines: [String] = []
        if stats.groups.isEmpty { return ["no transactions to summarise"] }
        let header = row(["PHASE", "N", "P50", "P90", "P99", "MAX"])
        for (key, g) in stats.sortedGroups {
            if !lines.isEmpty { lines.append("") }
            lines.append(groupLine(key, g))
            lines.append(header)
            for phase in EvidencePhase.allCases {
                let h = g.histogram(phase)
                lines.append(row([phase.rawValue, String(h.count)] + percentiles.map { duration(h.milliseconds(at: $0)) }
                                 + [duration(h.maxMilliseconds)]))
            }
        }
        return lines
    }

    /// `127.0.0.1:8080  http/1.1  40 hops, 1 error (2.5%)`, the host shortened in the middle
    /// when the line would pass 80 columns.
    static func groupLine(_ key: HostKey, _ g: GroupStatistics) -> String {
        let rest = "  \(key.protocolName)  \(g.count) hop\(g.count == 1 ? "" : "s"), \(g.errors) error\(g.errors == 1 ? "" : "s")"
            + (g.errorPercent.map { String(format: " (%.1f%%)", $0) } ?? "")
        let room = max(8, width - rest.count)
        return shorten(key.host, to: room) + rest
    }

    static func shorten(_ text: String, to room: Int) -> String {
        guard text.count > room else { return text }
        let keep = room - 1
        return String(text.prefix(keep - keep / 2)) + "…" + String(text.suffix(keep / 2))
    }

    /// `  PHASE          N       P50 …`: 2 + 9 + 8 + 4 x 11 = 63 columns.
    static func row(_ cells: [String]) -> String {
        func right(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        var line = "  " + cells[0].padding(toLength: 9, withPad: " ", startingAt: 0) + right(cells[1], 8)
        for c in cells.dropFirst(2) { line += right(c, 11) }
        return line
    }

    /// The same numbers for machines. Milliseconds with three decimals; a phase without
    /// samples has `"count": 0` and no percentile keys (absent, not zero).
    public static func json(_ stats: RunStatistics, tasks: TaskTotals? = nil, budgets: [BudgetResult] = []) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let tasks {
            members.append(("tasks", .object([("total", .int(Int64(tasks.total))), ("succeeded", .int(Int64(tasks.succeeded))),
                                              ("failed", .int(Int64(tasks.total - tasks.succeeded)))])))
        }
        members.append(("hosts", .array(stats.sortedGroups.map { key, g in
            .object([("host", .string(key.host)), ("protocol", .string(key.protocolName)),
                     ("count", .int(Int64(g.count))), ("errors", .int(Int64(g.errors))),
                     ("phases", .object(EvidencePhase.allCases.map { ($0.rawValue, phaseJSON(g.histogram($0))) }))])
        })))
        if !budgets.isEmpty {
            members.append(("budgets", .array(budgets.map { r -> JSONValue in
                var fields: [(String, JSONValue)] = [("budget", .string(r.budget.description)),
                                                     ("value", r.value.map { JSONValue.number($0) } ?? .null),
                                                     ("ok", .bool(!r.breached))]
                if let note = r.note { fields.append(("note", .string(note))) }
                return .object(fields)
            })))
        }
        return .object(members)
    }

    static func phaseJSON(_ h: PhaseHistogram) -> JSONValue {
        var members: [(String, JSONValue)] = [("count", .int(Int64(h.count)))]
        guard h.count > 0 else { return .object(members) }
        for p in percentiles { members.append(("p\(Int(p))_ms", .number(h.milliseconds(at: p)!))) }
        members.append(("max_ms", .number(h.maxMilliseconds!)))
        return .object(members)
    }
}

/// How many tasks the run had and how many succeeded (the summary's last line).
public struct TaskTotals: Sendable, Equatable {
    public var total: Int
    public var succeeded: Int
    public init(total: Int, succeeded: Int) {
        self.total = total
        self.succeeded = succeeded
    }
}
