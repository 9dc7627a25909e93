/// A progress bar as spans: eighth-block precision in UTF-8, `#`/`-` in ASCII.
public enum ProgressBar {
    /// Left-to-right partial blocks, index = eighths filled (0 draws nothing).
    static let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// A bar of exactly `width` columns. `fraction` nil means the size is unknown: an
    /// indeterminate block moves back and forth with `frame`.
    public static func spans(fraction: Double?, width: Int, utf8: Bool, frame: Int = 0) -> [Span] {
        guard width > 0 else { return [] }
        guard let fraction else { return indeterminate(width: width, utf8: utf8, frame: frame) }
        return determinate(Swift.min(1, Swift.max(0, fraction.isFinite ? fraction : 0)), width, utf8)
    }

    private static func determinate(_ f: Double, _ width: Int, _ utf8: Bool) -> [Span] {
        let empty = utf8 ? "·" : "-"
        guard utf8 else {
            let full = Int(f * Double(width))
            return [Span(repeated("#", full), .barFill), Span(repeated(empty, width - full), .barEmpty)]
        }
        let total = Int(f * Double(width * 8))
        let full = total / 8, part = eighths[total % 8]
        let rest = width - full - (part.isEmpty ? 0 : 1)
        return [Span(repeated("█", full) + part, .barFill), Span(repeated(empty, rest), .barEmpty)]
    }

    /// A transfer that failed: the part it reached in a shaded glyph (`▒`, ASCII `x`) that
    /// reads as "not done" without colour, whole cells only, and nothing at all when its size
    /// was unknown (a full bar would read as a success).
    public static func failed(fraction: Double?, width: Int, utf8: Bool) -> [Span] {
        guard width > 0 else { return [] }
        let f = Swift.min(1, Swift.max(0, fraction.flatMap { $0.isFinite ? $0 : nil } ?? 0))
        let reached = Int(f * Double(width))
        return [Span(repeated(utf8 ? "▒" : "x", reached), .barError), Span(repeated(utf8 ? "·" : "-", width - reached), .barEmpty)]
    }

    /// A block a quarter of the bar wide that bounces between the ends, one column per frame.
    private static func indeterminate(width: Int, utf8: Bool, frame: Int) -> [Span] {
        let block = Swift.max(1, width / 4)
        let travel = width - block
        let period = Swift.max(1, travel * 2)
        let step = ((frame % period) + period) % period
        let start = step <= travel ? step : period - step
        let empty = utf8 ? "·" : "-"
        return [Span(repeated(empty, start), .barEmpty),
                Span(repeated(utf8 ? "█" : "=", block), .barIndeterminate),
                Span(repeated(empty, width - start - block), .barEmpty)]
    }

    /// `  0%`, ` 50%`, `100%`: four columns, rounded down so 100% means really done; `  ?%`
    /// for unknown.
    public static func percent(_ fraction: Double?) -> String {
        guard let fraction, fraction.isFinite else { return "   ?" }
        let p = Int(Swift.min(1, Swift.max(0, fraction)) * 100)
        return TextFit.padLeft("\(p)%", 4)
    }

    /// The fraction done of `done` of `expected` bytes; nil when the size is unknown (-1 or 0).
    public static func fraction(done: Int64, expected: Int64) -> Double? {
        expected > 0 ? Double(done) / Double(expected) : nil
    }

    static func repeated(_ s: String, _ n: Int) -> String {
        n > 0 ? String(repeating: s, count: n) : ""
    }
}
