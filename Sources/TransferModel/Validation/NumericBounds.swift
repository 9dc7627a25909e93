/// Bounds for every number a user types: options, job fields. A number out of
/// range is an error, never a trap: `Int(1e26)` or `Int(seconds * 1000)` would crash the
/// process (SIGILL) where the engine turns seconds into milliseconds.
public enum NumericBounds {
    /// A timeout: more than 0, at most ten years. Ten years × 1000 ms fits easily in Int64
    /// and in libcurl's `long`, and no transfer needs more.
    public static let maximumSeconds: Double = 10 * 365 * 24 * 3600
    public static let minimumSeconds = 0.001
    public static let secondsText = "\(minimumSeconds) to \(Int(maximumSeconds)) (ten years)"

    /// Seconds from text, or nil unless finite, positive and at most `maximumSeconds`.
    public static func seconds(_ text: String) -> Double? {
        guard let s = Double(text) else { return nil }
        return validSeconds(s) ? s : nil
    }

    public static func validSeconds(_ s: Double) -> Bool {
        s.isFinite && s >= minimumSeconds && s <= maximumSeconds
    }

    /// A positive number of seconds brought into the valid range (infinity is the longest).
    public static func clampedSeconds(_ s: Double) -> Double { min(max(s, minimumSeconds), maximumSeconds) }

    /// `x` as an Int when it is a whole number within `range` (no trap for nan, inf or 1e300).
    public static func wholeNumber(_ x: Double, in range: ClosedRange<Int>) -> Int? {
        guard x.isFinite, x == x.rounded(), x >= Double(range.lowerBound), x <= Double(range.upperBound) else { return nil }
        return Int(x)
    }

    /// Milliseconds for libcurl and timers, clamped: never traps whatever the Double.
    public static func clampedMilliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? Int(maximumSeconds * 1000) : 0 }
        let ms = (seconds * 1000).rounded(.up)
        if ms <= 0 { return 0 }
        return ms >= maximumSeconds * 1000 ? Int(maximumSeconds * 1000) : Int(ms)
    }

    /// Nanoseconds for the engine's deadlines: nan and negatives are 0, anything above
    /// `UInt64.max` saturates (a `UInt64(x * 1e9)` would trap).
    public static func clampedNanoseconds(_ seconds: Double) -> UInt64 {
        let ns = seconds * 1e9
        guard ns > 0 else { return 0 }  // also nan
        return ns >= 1.8e19 ? UInt64.max : UInt64(ns)
    }

    /// `a + b` saturating at `UInt64.max` (a deadline ten thousand years away is "never").
    public static func saturatingAdd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? UInt64.max : sum
    }

    /// `Int(x)` for display maths that never traps: nan is 0, ±inf and huge values clamp to
    /// ±1e15 (far beyond anything a screen shows, well inside Int).
    public static func clampedInt(_ x: Double) -> Int {
        guard !x.isNaN else { return 0 }
        return Int(Swift.min(1e15, Swift.max(-1e15, x)))
    }
}
