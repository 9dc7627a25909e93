/// A colour theme: a style for every role.
public struct Theme: Sendable, Equatable {
    public var name: String
    public var styles: [StyleRole: ThemeStyle]

    public init(name: String, styles: [StyleRole: ThemeStyle]) {
        self.name = name
        self.styles = styles
    }

    /// The role's style; a role the theme does not name is drawn plainly.
    public subscript(role: StyleRole) -> ThemeStyle {
        styles[role] ?? ThemeStyle()
    }

    /// The built-in dark theme, parsed from the text embedded in the binary, so the monitor
    /// has colours even with no theme files installed.
    public static let builtInDefault: Theme = {
        // The embedded text is tested to parse; a failure here is a build defect.
        (try? ThemeParser.parse(BuiltInThemes.defaultText, file: "<built-in default>", base: nil))
            ?? Theme(name: "default", styles: [:])
    }()

    /// Every role at the terminal's depth, in an array the backend indexes by `role.index`.
    public func resolved(depth: ColorDepth) -> ResolvedTheme {
        ResolvedTheme(name: name, styles: StyleRole.allCases.map { ColorFallback.resolve(self[$0], depth: depth) })
    }
}

/// A theme ready to draw with: one resolved style per role.
public struct ResolvedTheme: Sendable, Equatable {
    public var name: String
    /// Indexed by `StyleRole.index`.
    public var styles: [ResolvedStyle]

    public subscript(role: StyleRole) -> ResolvedStyle { styles[role.index] }
}
