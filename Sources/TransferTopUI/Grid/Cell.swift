/// One terminal cell: a grapheme and the role it is drawn in.
///
/// A wide (East-Asian or emoji) grapheme occupies two cells: the first holds it, the second
/// holds the empty string as a *continuation*, so a backend knows to skip it.
public struct Cell: Sendable, Equatable, Hashable {
    public var grapheme: String
    public var role: StyleRole

    public init(_ grapheme: String, _ role: StyleRole = .text) {
        self.grapheme = grapheme
        self.role = role
    }

    public static let blank = Cell(" ", .text)

    /// The right half of a wide grapheme.
    public var isContinuation: Bool { grapheme.isEmpty }
}

/// A horizontal run of cells that changed between two frames: what a backend flushes.
public struct CellRun: Sendable, Equatable {
    public var row: Int
    public var column: Int
    public var cells: [Cell]

    public init(row: Int, column: Int, cells: [Cell]) {
        self.row = row
        self.column = column
        self.cells = cells
    }

    /// The run's text, continuations skipped (they are covered by their wide grapheme).
    public var text: String { cells.map(\.grapheme).joined() }
}

/// A piece of text in one role: views build lines of spans, the grid writes them.
public struct Span: Sendable, Equatable {
    public var text: String
    public var role: StyleRole

    public init(_ text: String, _ role: StyleRole = .text) {
        self.text = text
        self.role = role
    }
}
