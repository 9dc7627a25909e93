import Foundation

/// A phase's values as bars: `counts[i]` values fall in `[edges[i], edges[i+1])` (the last bin
/// includes its upper edge). Log-spaced when the values span more than a factor of ten
/// (latency is long-tailed: linear bins put nearly everything in the first bar), linear
/// otherwise; one bin when every value is the same.
public struct HistogramBins: Sendable, Equatable {
    public var edges: [Double]
    public var counts: [Int]
    public var logarithmic: Bool

    public static let binCount = 24

    public init?(_ values: [Double], bins: Int = binCount) {
        guard let lo = values.min(), let hi = values.max() else { return nil }
        if hi <= lo {
            self.init(edges: [lo, hi], counts: [values.count], logarithmic: false)
            return
        }
        let logarithmic = lo > 0 && hi / lo > 10 && (hi / lo).isFinite
        var edges: [Double] = []
        for i in 0...bins {
            let f = Double(i) / Double(bins)
            edges.append(logarithmic ? lo * pow(hi / lo, f) : lo + (hi - lo) * f)
        }
        edges[bins] = hi
        var counts = [Int](repeating: 0, count: bins)
        for v in values {
            let f = logarithmic ? log(v / lo) / log(hi / lo) : (v - lo) / (hi - lo)
            counts[min(bins - 1, max(0, Int(f * Double(bins))))] += 1
        }
        self.init(edges: edges, counts: counts, logarithmic: logarithmic)
    }

    init(edges: [Double], counts: [Int], logarithmic: Bool) {
        self.edges = edges
        self.counts = counts
        self.logarithmic = logarithmic
    }
}
