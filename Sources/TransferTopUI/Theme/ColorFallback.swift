/// Maps theme colours down to what the terminal can show: truecolor → 256 → 16 → none.
public enum ColorFallback {
    public static func resolve(_ color: ThemeColor, depth: ColorDepth) -> ResolvedColor {
        switch (color, depth) {
        case (.default, _), (_, .none): return .default
        case (.rgb(let r, let g, let b), .truecolor): return .rgb(r, g, b)
        case (.rgb(let r, let g, let b), .xterm256): return .index(nearest256(r, g, b))
        case (.rgb(let r, let g, let b), .ansi16): return .index(nearest16(r, g, b))
        case (.indexed(let i), .ansi16): return .index(i < 16 ? i : nearest16(rgb(ofIndex: i)))
        case (.indexed(let i), _): return .index(i)
        case (.ansi(let i), _): return .index(i)
        }
    }

    public static func resolve(_ style: ThemeStyle, depth: ColorDepth) -> ResolvedStyle {
        ResolvedStyle(foreground: resolve(style.foreground, depth: depth),
                      background: resolve(style.background, depth: depth),
                      attributes: style.attributes)
    }

    /// xterm's cube levels for indices 16-231.
    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    /// The nearest of the 6x6x6 cube and the 24 greys (16-255); the 16 ANSI colours are left
    /// out because terminals redefine them.
    public static func nearest256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        let cube = [r, g, b].map { nearestLevel(Int($0)) }
        let cubeIndex = 16 + 36 * cube[0] + 6 * cube[1] + cube[2]
        let grey = Swift.min(23, Swift.max(0, (Int((Int(r) + Int(g) + Int(b)) / 3) - 8 + 5) / 10))
        let greyIndex = 232 + grey
        let target = (Int(r), Int(g), Int(b))
        return distance(rgb(ofIndex: greyIndex), target) < distance(rgb(ofIndex: cubeIndex), target) ? greyIndex : cubeIndex
    }

    /// One of the 16 ANSI colours, by channel thresholds as chalk's `ansi-styles` does: each
    /// channel on or off, bright when the strongest channel is near full. Nearest-by-distance
    /// against xterm's palette turns greens cyan, because the palette's colours are so far apart.
    public static func nearest16(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        nearest16((Int(r), Int(g), Int(b)))
    }

    static func nearest16(_ c: (Int, Int, Int)) -> Int {
        let value = Int((Double(Swift.max(c.0, c.1, c.2)) / 255 * 2).rounded())
        guard value > 0 else { return 0 }
        let on = { (v: Int) in Int((Double(v) / 255).rounded()) }
        let base = on(c.2) << 2 | on(c.1) << 1 | on(c.0)
        return value == 2 ? base + 8 : base
    }

    static func nearestLevel(_ v: Int) -> Int {
        (0..<6).min { abs(cubeLevels[$0] - v) < abs(cubeLevels[$1] - v) }!
    }

    /// xterm's default RGB for a palette index.
    public static func rgb(ofIndex i: Int) -> (Int, Int, Int) {
        switch i {
        case 0..<16: return ansiPalette[i]
        case 16..<232:
            let n = i - 16
            return (cubeLevels[n / 36], cubeLevels[n / 6 % 6], cubeLevels[n % 6])
        default:
            let v = 8 + 10 * (i - 232)
            return (v, v, v)
        }
    }

    static let ansiPalette: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// Squared distance weighted for the eye (green counts most), cheap and good enough.
    static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let dr = a.0 - b.0, dg = a.1 - b.1, db = a.2 - b.2
        return 2 * dr * dr + 4 * dg * dg + 3 * db * db
    }
}
