/// The report's colours as CSS `#rrggbb`: the waterfall's seven parts take the theme's phase
/// roles, the page its text roles. The CLI makes one from the theme in use (`--theme`); the
/// default here is themes/default.toml's (a test keeps the two equal).
public struct ReportPalette: Sendable, Equatable {
    public var parts: [HopPart: String]
    public var text, dim, title, border, error, background: String

    /// Colours that are not `#rrggbb` (six hex digits) are replaced by the default's, so
    /// nothing but a colour can reach the style sheet.
    public init(parts: [HopPart: String], text: String, dim: String, title: String, border: String,
                error: String, background: String) {
        func safe(_ c: String?, _ fallback: String) -> String {
            guard let c, c.count == 7, c.first == "#", c.dropFirst().allSatisfy(\.isHexDigit) else { return fallback }
            return c.lowercased()
        }
        let d = Self.defaultColours
        self.parts = Dictionary(uniqueKeysWithValues: HopPart.allCases.map { ($0, safe(parts[$0], d.parts[$0]!)) })
        self.text = safe(text, d.text)
        self.dim = safe(dim, d.dim)
        self.title = safe(title, d.title)
        self.border = safe(border, d.border)
        self.error = safe(error, d.error)
        self.background = safe(background, d.background)
    }

    /// The colour of a statistics phase in the histograms: the part it ends with (`ttfb` is
    /// the wait for the first byte, `total` ends with the body).
    public func colour(_ phase: EvidencePhase) -> String {
        switch phase {
        case .dns: parts[.dns]!
        case .connect: parts[.connect]!
        case .tls: parts[.tls]!
        case .ttfb: parts[.wait]!
        case .total: parts[.receive]!
        }
    }

    public static let `default` = ReportPalette(parts: [:], text: "", dim: "", title: "", border: "", error: "", background: "")

    /// themes/default.toml; the page's background is the dark the theme is drawn for.
    private static let defaultColours = (
        parts: [HopPart.queued: "#6272a4", .dns: "#8be9fd", .connect: "#ffb86c", .tls: "#ff79c6",
                .request: "#f1fa8c", .wait: "#bfbfbf", .receive: "#50fa7b"],
        text: "#f8f8f2", dim: "#6272a4", title: "#8be9fd", border: "#6272a4", error: "#ff5555", background: "#282a36")
}
