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

    /// Values that are not finite are left out: no bar holds them.
    public init?(_ given: [Double], bins: Int = binCount) {
        let values = given.filter(\.isFinite)
        guard let lo = values.min(), let hi = values.max() else { return nil }
        if hi <= lo {
            self.init(edges: [lo, hi], counts: [values.count], logarithmic: false)
            return
        }
        let logarithmic = lo > 0 && hi / lo > 10 && (hi / lo).isFinite
        var edges: [Double] = []
        for i in 0...bins {
            let f = Double(i) / Double(bins)
            edges.append(logarithmic ? lo * pow(hi / lo, f) : lo * (1 - f) + hi * f)
        }
        edges[bins] = hi
        var counts = [Int](repeating: 0, count: bins)
        // Halves: the difference of two finite values can be past what a Double holds.
        let span = hi / 2 - lo / 2
        for v in values {
            let f = logarithmic ? log(v / lo) / log(hi / lo) : (v / 2 - lo / 2) / span
            let bin = f * Double(bins)
            counts[bin.isNaN ? 0 : Int(min(Double(bins - 1), max(0, bin)))] += 1
        }
        self.init(edges: edges, counts: counts, logarithmic: logarithmic)
    }

    init(edges: [Double], counts: [Int], logarithmic: Bool) {
        self.edges = edges
        self.counts = counts
        self.logarithmic = logarithmic
    }
}
