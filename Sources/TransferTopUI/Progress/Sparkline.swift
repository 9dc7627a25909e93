/// A speed history as one row of block heights: `▁▂▅█▇`, ASCII ` .:-=+*#`.
public enum Sparkline {
    static let blocks = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    static let ascii = [" ", ".", ":", "-", "=", "+", "*", "#"]

    /// The last `width` values, scaled to the largest of them; zero is the lowest block.
    public static func text(_ values: [Double], width: Int, utf8: Bool) -> String {
        guard width > 0 else { return "" }
        let shown = values.suffix(width)
        let top = shown.max() ?? 0
        let glyphs = utf8 ? blocks : ascii
        return shown.map { v -> String in
            guard top > 0, v.isFinite, v > 0 else { return glyphs[0] }
            return glyphs[Swift.min(7, Swift.max(0, Int((v / top * 7).rounded())))]
        }.joined()
    }
}
