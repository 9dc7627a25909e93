/// How many colours the terminal can show; chosen by the caller from terminfo/`COLORTERM`.
public enum ColorDepth: String, Sendable, Equatable, CaseIterable, Comparable {
    case none, ansi16, xterm256, truecolor

    public static func < (a: ColorDepth, b: ColorDepth) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The depth to draw with: `NO_COLOR` (set to anything non-empty, per no-color.org)
    /// forces none; otherwise what the terminal supports.
    public static func effective(supported: ColorDepth, environment: [String: String]) -> ColorDepth {
        if let v = environment["NO_COLOR"], !v.isEmpty { return .none }
        return supported
    }

    /// A best guess from `COLORTERM`, `TERM` and the number of colours terminfo reports.
    public static func detect(environment: [String: String], terminfoColors: Int) -> ColorDepth {
        let colorterm = environment["COLORTERM"]?.lowercased() ?? ""
        if colorterm == "truecolor" || colorterm == "24bit" { return .truecolor }
        if terminfoColors >= 256 || (environment["TERM"] ?? "").contains("256color") { return .xterm256 }
        return terminfoColors >= 8 ? .ansi16 : .none
    }
}

/// A colour the backend can use as is.
public enum ResolvedColor: Sendable, Equatable, Hashable {
    case `default`
    /// A palette index: 0-15 at ansi16 depth, 0-255 at xterm256.
    case index(Int)
    case rgb(UInt8, UInt8, UInt8)
}

/// A role's style at the terminal's depth.
public struct ResolvedStyle: Sendable, Equatable, Hashable {
    public var foreground: ResolvedColor
    public var background: ResolvedColor
    public var attributes: Set<TextAttribute>

    public init(foreground: ResolvedColor = .default, background: ResolvedColor = .default,
                attributes: Set<TextAttribute> = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }
}
