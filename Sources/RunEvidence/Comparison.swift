import Foundation

/// Mann–Whitney U (Wilcoxon rank-sum): whether one sample's values tend to be larger than
/// the other's, with no assumption of a normal distribution (latencies are skewed and
/// long-tailed). Two-sided p from the normal approximation with the tie correction and a
/// continuity correction.
public enum MannWhitney {
    public struct Result: Sendable, Equatable {
        /// U of the first sample.
        public var u: Double
        public var z: Double
        public var p: Double
    }

    /// nil when either sample is empty.
    public static func test(_ a: [Double], _ b: [Double]) -> Result? {
        let n1 = Double(a.count), n2 = Double(b.count)
        guard n1 > 0, n2 > 0 else { return nil }
        var all = a.map { ($0, true) } + b.map { ($0, false) }
        all.sort { $0.0 < $1.0 }
        let n = Double(all.count)
        var rankSumA = 0.0, tieTerm = 0.0
        var i = 0
        while i < all.count {
            var j = i
            while j + 1 < all.count, all[j + 1].0 == all[i].0 { j += 1 }
            let rank = Double(i + j) / 2 + 1  // average of ranks i+1 ... j+1
            let t = Double(j - i + 1)
            if t > 1 { tieTerm += t * t * t - t }
            for k in i...j where all[k].1 { rankSumA += rank }
            i = j + 1
        }
        let u = rankSumA - n1 * (n1 + 1) / 2
        let mean = n1 * n2 / 2
        let variance = n1 * n2 / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else { return Result(u: u, z: 0, p: 1) }
        let diff = u - mean
        let corrected = diff == 0 ? 0 : (abs(diff) - 0.5) * (diff < 0 ? -1 : 1)
        let z = corrected / variance.squareRoot()
        return Result(u: u, z: z, p: min(1, erfc(abs(z) / 2.0.squareRoot())))
    }
}

/// Nearest-rank percentile of sorted values (as an HDR histogram reads one, without its
/// buckets): the smallest value with at least `p` % of the values at or below it.
public func percentile(_ sorted: [Double], _ p: Double) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let rank = max(1, Int((p / 100 * Double(sorted.count)).rounded(.up)))
    return sorted[min(sorted.count, rank) - 1]
}

/// `compare BEFORE AFTER`: per host and phase, the p50 and p90 of each run, their change, the
/// Mann–Whitney p, and a verdict.
public struct RunComparison: Sendable {
    public enum Verdict: String, Sendable { case faster, slower, noChange = "no change", notEnough = "too few" }

    public struct Settings: Sendable, Equatable {
        /// A change smaller than this fraction of the before-median is no change (0.10).
        public var threshold: Double
        /// Significance level (0.01).
        public var alpha: Double
        /// A change of the median smaller than this, in ms, is no change: a millisecond is
        /// scheduling noise on a loaded host, not the network (1).
        public var minimumChangeMs: Double
        public init(threshold: Double = 0.10, alpha: Double = 0.01, minimumChangeMs: Double = 1) {
            self.threshold = threshold
            self.alpha = alpha
            self.minimumChangeMs = minimumChangeMs
        }
    }

    public struct Row: Sendable {
        public var host: String
        public var phase: EvidencePhase
        public var before: [Double]
        public var after: [Double]
        public var test: MannWhitney.Result?
        public var verdict: Verdict

        public func p50(_ values: [Double]) -> Double? { percentile(values, 50) }
        public func p90(_ values: [Double]) -> Double? { percentile(values, 90) }
    }

    public var rows: [Row]
    public var settings: Settings

    /// Samples need at least this many values per side for a verdict: below it, the normal
    /// approximation of U is too rough to trust a p under 0.01.
    public static let minimumSamples = 8

    public init(before: [HopSample], after: [HopSample], settings: Settings = Settings()) {
        self.settings = settings
        func grouped(_ samples: [HopSample]) -> [String: [EvidencePhase: [Double]]] {
            var g: [String: [EvidencePhase: [Double]]] = [:]
            for s in samples {
                for (phase, v) in s.milliseconds { g[s.host, default: [:]][phase, default: []].append(v) }
            }
            return g
        }
        let b = grouped(before), a = grouped(after)
        var rows: [Row] = []
        for host in Set(b.keys).union(a.keys).sorted() {
            for phase in EvidencePhase.allCases {
                let x = (b[host]?[phase] ?? []).sorted(), y = (a[host]?[phase] ?? []).sorted()
                if x.isEmpty && y.isEmpty { continue }
                let test = MannWhitney.test(x, y)
                rows.append(Row(host: host, phase: phase, before: x, after: y, test: test,
                                verdict: Self.verdict(x, y, test, settings)))
            }
        }
        self.rows = rows
    }

    static func verdict(_ x: [Double], _ y: [Double], _ test: MannWhitney.Result?, _ s: Settings) -> Verdict {
        guard x.count >= minimumSamples, y.count >= minimumSamples, let test, let m0 = percentile(x, 50),
              let m1 = percentile(y, 50) else { return .notEnough }
        guard test.p < s.alpha, abs(m1 - m0) >= s.minimumChangeMs else { return .noChange }
        if m1 > m0 * (1 + s.threshold) { return .slower }
        if m1 < m0 * (1 - s.threshold) { return .faster }
        return .noChange
    }

    /// Whether any row got slower beyond the threshold (`compare` exits 1).
    public var hasRegression: Bool { rows.contains { $0.verdict == .slower } }

    /// The table, at most 80 columns: a line per host, a row per phase.
    public func table() -> [String] {
        var lines: [String] = []
        var host: String?
        let header = Self.row(["PHASE", "N1", "N2", "P50 A", "P50 B", "ΔP50", "ΔP90", "P", "VERDICT"])
        for r in rows {
            if r.host != host {
                if host != nil { lines.append("") }
                host = r.host
                lines.append(EvidenceFormat.shorten(r.host, to: EvidenceFormat.width))
                lines.append(header)
            }
            lines.append(Self.row([r.phase.rawValue, String(r.before.count), String(r.after.count),
                                   EvidenceFormat.duration(r.p50(r.before)), EvidenceFormat.duration(r.p50(r.after)),
                                   Self.change(r.p50(r.before), r.p50(r.after)), Self.change(r.p90(r.before), r.p90(r.after)),
                                   r.test.map { Self.pText($0.p) } ?? "-", r.verdict.rawValue]))
        }
        return lines
    }

    /// `+12.5%`, `-3.0%`, `>+9999%`; `-` when a side is missing.
    static func change(_ a: Double?, _ b: Double?) -> String {
        guard let a, let b else { return "-" }
        if a == 0 { return b == 0 ? "+0.0%" : "new" }
        let pct = (b - a) / a * 100
        if pct > 9999 { return ">+9999%" }
        return String(format: "%+.1f%%", pct)
    }

    static func pText(_ p: Double) -> String { p < 0.0001 ? "<0.0001" : String(format: "%.4f", p) }

    /// 2 + 8 + 6 + 6 + 9 + 9 + 9 + 9 + 9 + 2 + 9: 78 columns.
    static func row(_ c: [String]) -> String {
        func right(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        return "  " + c[0].padding(toLength: 8, withPad: " ", startingAt: 0) + right(c[1], 6) + right(c[2], 6)
            + right(c[3], 9) + right(c[4], 9) + right(c[5], 9) + right(c[6], 9) + right(c[7], 9) + "  " + c[8]
    }
}
