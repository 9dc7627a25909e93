import Histogram

/// One phase's durations as an HDR histogram of microseconds: three significant digits (a
/// percentile is within 0.1 % of the true value) in memory that does not grow with the
/// number of samples, so a run of 100,000 transfers costs what a run of 100 does.
public struct PhaseHistogram: Sendable {
    private var histogram = Histogram<UInt64>(numberOfSignificantValueDigits: .three)

    public init() {}

    public var count: Int { Int(histogram.totalCount) }

    public mutating func record(milliseconds ms: Double) {
        guard ms.isFinite, ms >= 0 else { return }
        // Bounded below the histogram's own limit (UInt64.max / 2): about 146,000 years.
        histogram.record(UInt64(min((ms * 1000).rounded(), 4.6e15)))
    }

    public mutating func add(_ other: PhaseHistogram) {
        if other.count > 0 { histogram.add(other.histogram) }
    }

    /// The value at `percentile` (0-100) in milliseconds; nil without samples (never 0).
    public func milliseconds(at percentile: Double) -> Double? {
        guard count > 0 else { return nil }
        return Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    /// The largest recorded value in milliseconds (exact, not a bucket's edge).
    public var maxMilliseconds: Double? { count > 0 ? Double(histogram.maxRecorded) / 1000 : nil }
}
