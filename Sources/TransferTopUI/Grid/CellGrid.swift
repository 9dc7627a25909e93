import TransferModel

/// An in-memory screen: views draw here, a backend flushes the difference.
///
/// Every write is clipped to the grid, so a view never needs to know whether it fits; any
/// size, including 0x0, is valid.
public struct CellGrid: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row-major cells, `width * height` of them.
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int, fill: Cell = .blank) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: fill, count: self.width * self.height)
    }

    public subscript(column: Int, row: Int) -> Cell {
        get { cells[row * width + column] }
        set { cells[row * width + column] = newValue }
    }

    func contains(column: Int, row: Int) -> Bool {
        column >= 0 && column < width && row >= 0 && row < height
    }
}

extension CellGrid {
    /// Writes `text` from (column, row), clipped at `limit` (exclusive; default the grid's
    /// right edge). Returns the column after the last cell written.
    @discardableResult
    public mutating func write(_ text: String, column: Int, row: Int, role: StyleRole = .text,
                               limit: Int? = nil) -> Int {
        let end = Swift.min(limit ?? width, width)
        guard row >= 0, row < height else { return column }
        var x = column
        for character in text {
            let w = DisplayWidth.of(character)
            if w == 0 { continue }
            if x + w > end { break }
            if x >= 0 { put(character, width: w, column: x, row: row, role: role) }
            x += w
        }
        return x
    }

    /// Writes spans one after another; returns the column after the last.
    @discardableResult
    public mutating func write(_ spans: [Span], column: Int, row: Int, limit: Int? = nil) -> Int {
        var x = column
        for span in spans { x = write(span.text, column: x, row: row, role: span.role, limit: limit) }
        return x
    }

    /// Writes spans as `write` does, but when they do not fit before the right edge the last
    /// columns show `ellipsis`: a cut message says it was cut. Returns the column after the last.
    @discardableResult
    public mutating func writeFitted(_ spans: [Span], column: Int, row: Int, ellipsis: String) -> Int {
        let total = spans.reduce(0) { $0 + DisplayWidth.of($1.text) }
        guard column + total > width else { return write(spans, column: column, row: row) }
        let room = Swift.max(0, width - column - DisplayWidth.of(ellipsis))
        let x = write(spans, column: column, row: row, limit: column + room)
        return write(ellipsis, column: x, row: row, role: spans.last?.role ?? .text)
    }

    /// Fills a rectangle with one grapheme in one role (clipped).
    public mutating func fill(_ grapheme: String = " ", role: StyleRole, column: Int, row: Int,
                              width w: Int, height h: Int) {
        for y in Swift.max(0, row)..<Swift.max(Swift.max(0, row), Swift.min(height, row + h)) {
            for x in Swift.max(0, column)..<Swift.max(Swift.max(0, column), Swift.min(width, column + w)) {
                clearWideNeighbours(column: x, row: y)
                self[x, y] = Cell(grapheme, role)
            }
        }
    }

    /// Changes the role of cells without touching their text (e.g. a selection highlight).
    public mutating func setRole(_ role: StyleRole, column: Int, row: Int, width w: Int) {
        guard row >= 0, row < height else { return }
        for x in Swift.max(0, column)..<Swift.max(Swift.max(0, column), Swift.min(width, column + w)) {
            self[x, row].role = role
        }
    }

    private mutating func put(_ character: Character, width w: Int, column x: Int, row y: Int,
                              role: StyleRole) {
        let text = isControl(character) ? "?" : String(character)
        clearWideNeighbours(column: x, row: y)
        self[x, y] = Cell(text, role)
        if w == 2 {
            clearWideNeighbours(column: x + 1, row: y)
            self[x + 1, y] = Cell("", role)
        }
    }

    /// A raw control byte (from a URL or a header) must never reach the terminal, nor a bidi
    /// override that would reorder what follows it on the row (`UnicodeSafety`).
    private func isControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains(where: UnicodeSafety.isUnsafe)
    }

    /// Before overwriting a cell, blanks the other half of any wide grapheme it belongs to,
    /// so no half of a wide character is ever left on screen.
    private mutating func clearWideNeighbours(column x: Int, row y: Int) {
        if self[x, y].isContinuation, x > 0 { self[x - 1, y] = Cell(" ", self[x - 1, y].role) }
        if x + 1 < width, self[x + 1, y].isContinuation { self[x + 1, y] = Cell(" ", self[x + 1, y].role) }
    }
}

extension CellGrid {
    /// The grid as text: rows joined by "\n", trailing spaces trimmed. For golden tests.
    public func render() -> String {
        (0..<height).map { rowText($0) }.joined(separator: "\n")
    }

    /// One row's text with trailing spaces trimmed.
    public func rowText(_ row: Int) -> String {
        var line = ""
        for x in 0..<width { line += self[x, row].grapheme }
        while line.last == " " { line.removeLast() }
        return line
    }

    /// Runs of cells that differ from `other`, row by row: what a backend must redraw.
    ///
    /// A grid of another size has nothing in common with this one: every row is one run.
    public func diff(from other: CellGrid) -> [CellRun] {
        guard other.width == width, other.height == height else {
            return (0..<height).filter { _ in width > 0 }.map { CellRun(row: $0, column: 0, cells: rowCells($0, 0..<width)) }
        }
        var runs: [CellRun] = []
        for y in 0..<height { runs += changedRuns(row: y, other: other) }
        return runs
    }

    private func changedRuns(row y: Int, other: CellGrid) -> [CellRun] {
        var runs: [CellRun] = []
        var x = 0
        while x < width {
            guard self[x, y] != other[x, y] else { x += 1; continue }
            var start = x
            while x < width, self[x, y] != other[x, y] { x += 1 }
            // Never start on the right half of a wide grapheme or end on its left half.
            if self[start, y].isContinuation, start > 0 { start -= 1 }
            if x < width, self[x, y].isContinuation { x += 1 }
            runs.append(CellRun(row: y, column: start, cells: rowCells(y, start..<x)))
        }
        return runs
    }

    private func rowCells(_ y: Int, _ range: Range<Int>) -> [Cell] {
        Array(cells[(y * width + range.lowerBound)..<(y * width + range.upperBound)])
    }
}
