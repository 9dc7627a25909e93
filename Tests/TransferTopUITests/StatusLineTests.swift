import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// A status message or question longer than the screen ends with an ellipsis, so a cut
/// message says it was cut; one that fits is drawn as it is.
@Suite struct StatusLineTests {
    static let long = "task 1.1: resume data cannot be used: the server's validator changed since the partial file was written, so it starts again"

    @Test(arguments: [(80, true), (120, true), (80, false)])
    func aLongStatusMessageEndsWithAnEllipsis(width: Int, utf8: Bool) throws {
        var m = Fixtures.model(width: width, height: 24)
        m.utf8 = utf8
        m.statusMessage = Self.long
        let grid = ScreenRenderer.render(m)
        let row = (0..<grid.height).map { grid.rowText($0) }.first { $0.hasPrefix("task 1.1: resume data") }
        let text = try #require(row)
        let cut = utf8 ? "…" : "..."
        #expect(text.hasSuffix(cut), "\(text)")
        #expect(DisplayWidth.of(text) == width)
        #expect(Self.long.hasPrefix(String(text.dropLast(cut.count))))
    }

    @Test func aShortStatusMessageIsDrawnWhole() {
        var m = Fixtures.model(width: 80, height: 24)
        m.statusMessage = "theme: light"
        let grid = ScreenRenderer.render(m)
        #expect((0..<grid.height).contains { grid.rowText($0).trimmingCharacters(in: .whitespaces) == "theme: light" })
    }
}
