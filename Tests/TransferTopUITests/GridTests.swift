import Testing
@testable import TransferTopUI

@Suite struct GridTests {
    @Test func zeroAndOneSizedGridsAcceptWrites() {
        var empty = CellGrid(width: 0, height: 0)
        empty.write("hello", column: 0, row: 0)
        empty.fill("x", role: .text, column: -1, row: -1, width: 5, height: 5)
        #expect(empty.render() == "")
        var one = CellGrid(width: 1, height: 1)
        one.write("日本", column: 0, row: 0)
        #expect(one.render() == "")
        one.write("ab", column: 0, row: 0)
        #expect(one.render() == "a")
        #expect(one.diff(from: empty).count == 1)
    }

    @Test func writesAreClippedAndTrailingSpacesTrimmed() {
        var g = CellGrid(width: 5, height: 2)
        let end = g.write("abcdefg", column: 2, row: 0, role: .header)
        #expect(end == 5)
        g.write("xy", column: -1, row: 1)
        #expect(g.render() == "  abc\ny")
        #expect(g[2, 0].role == .header)
    }

    @Test func wideCharactersTakeTwoCells() {
        var g = CellGrid(width: 6, height: 1)
        let end = g.write("日本x", column: 0, row: 0)
        #expect(end == 5)
        #expect(g[1, 0].isContinuation)
        #expect(g.render() == "日本x")
        // A wide grapheme that would straddle the edge is not drawn.
        var h = CellGrid(width: 3, height: 1)
        h.write("a日本", column: 0, row: 0)
        #expect(h.render() == "a日")
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("👍") == 2)
        #expect(DisplayWidth.of("é") == 1)
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var g = CellGrid(width: 4, height: 1)
        g.write("日本", column: 0, row: 0)
        g.write("x", column: 1, row: 0)
        #expect(g.render() == " x本")
        g.write("y", column: 2, row: 0)
        #expect(g.render() == " xy")
    }

    @Test func controlCharactersNeverReachTheTerminal() {
        var g = CellGrid(width: 8, height: 1)
        g.write("a\u{1B}[2Jb", column: 0, row: 0)
        #expect(g.render() == "a?[2Jb")
    }

    @Test func bidiOverridesAndC1ControlsNeverReachTheTerminal() {
        var g = CellGrid(width: 12, height: 1)
        g.write("a\u{202E}txt\u{9B}2Jb", column: 0, row: 0)
        #expect(g.render() == "a?txt?2Jb")
    }

    @Test func diffReportsRunsOfChangedCells() {
        let a = CellGrid(width: 10, height: 2)
        var b = a
        b.write("ab", column: 1, row: 0)
        b.write("z", column: 9, row: 1)
        b.write("q", column: 4, row: 0)
        let runs = b.diff(from: a)
        #expect(runs.map { [$0.row, $0.column] } == [[0, 1], [0, 4], [1, 9]])
        #expect(runs.map(\.text) == ["ab", "q", "z"])
        #expect(b.diff(from: b).isEmpty)
    }

    @Test func diffNeverSplitsAWideCharacter() {
        var a = CellGrid(width: 4, height: 1)
        a.write("日", column: 0, row: 0)
        var b = CellGrid(width: 4, height: 1)
        b.write("本", column: 0, row: 0)
        let runs = b.diff(from: a)
        #expect(runs == [CellRun(row: 0, column: 0, cells: [Cell("本"), Cell("")])])
    }

    @Test func diffAgainstAnotherSizeRepaintsEverything() {
        let a = CellGrid(width: 3, height: 2)
        let b = CellGrid(width: 4, height: 2)
        #expect(b.diff(from: a).map(\.row) == [0, 1])
        #expect(b.diff(from: a).allSatisfy { $0.cells.count == 4 })
    }
}
