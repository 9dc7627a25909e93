/// A colour as a theme file names it, before the terminal's depth is known.
public enum ThemeColor: Sendable, Equatable, Hashable {
    /// The terminal's own foreground or background.
    case `default`
    /// One of the 16 ANSI colours, 0-7 normal and 8-15 bright.
    case ansi(Int)
    /// An xterm-256 palette index.
    case indexed(Int)
    case rgb(UInt8, UInt8, UInt8)

    /// ANSI names in palette order; `bright-` names are 8 higher.
    public static let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// Parses `#rrggbb`, `0`-`255`, `red`, `bright-red` (also `brightred`), or `default`.
    public init?(parsing text: String) {
        let t = text.lowercased()
        if t == "default" { self = .default; return }
        if let i = Self.names.firstIndex(of: t) { self = .ansi(i); return }
        for prefix in ["bright-", "bright"] where t.hasPrefix(prefix) {
            if let i = Self.names.firstIndex(of: String(t.dropFirst(prefix.count))) { self = .ansi(i + 8); return }
        }
        if let n = Int(t), (0...255).contains(n), t.allSatisfy(\.isNumber) { self = .indexed(n); return }
        guard t.count == 7, t.first == "#", let v = UInt32(t.dropFirst(), radix: 16) else { return nil }
        self = .rgb(UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF))
    }
}

/// Text attributes a role may add to its colours.
public enum TextAttribute: String, Sendable, Equatable, Hashable, CaseIterable, Comparable {
    case bold, dim, italic, underline, reverse

    public static func < (a: TextAttribute, b: TextAttribute) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// How a role is drawn, as a theme file says.
public struct ThemeStyle: Sendable, Equatable, Hashable {
    public var foreground: ThemeColor
    public var background: ThemeColor
    public var attributes: Set<TextAttribute>

    public init(_ foreground: ThemeColor = .default, on background: ThemeColor = .default,
                _ attributes: Set<TextAttribute> = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }
}
