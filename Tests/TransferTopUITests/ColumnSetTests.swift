import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// At 80 columns not every column fits: `v` cycles what the table keeps, phases (the
/// default), sizes and ETA, or file names instead of URLs.
@Suite struct ColumnSetTests {
    static func headings(_ m: MonitorModel) throws -> String {
        let grid = ScreenRenderer.render(m)
        let rows = (0..<grid.height).map { grid.rowText($0) }
        return try #require(rows.first { $0.contains(" ID ") && $0.contains("STATE") })
    }

    @Test func vCyclesTheColumnSetsAtEightyColumns() throws {
        var m = Fixtures.model(width: 80, height: 24)
        let phases = try Self.headings(m)
        #expect(phases.contains("TTFB") && !phases.contains("ETA"), "\(phases)")
        m = Reducer.handleKey(m, .char("v"), bindings: .defaults).0
        #expect(m.statusMessage == "columns: speed and ETA (and DONE/TOTAL where it fits)")
        let sizes = try Self.headings(m)
        #expect(sizes.contains("ETA") && sizes.contains("SPEED") && !sizes.contains("TTFB"), "\(sizes)")
        m = Reducer.handleKey(m, .char("v"), bindings: .defaults).0
        let files = try Self.headings(m)
        #expect(files.contains("FILE") && !files.contains("URL"), "\(files)")
        m = Reducer.handleKey(m, .char("v"), bindings: .defaults).0
        #expect(try Self.headings(m) == phases)
    }

    @Test func theFileColumnShowsTheDownloadsName() throws {
        var task = Fixtures.task(1, 7, .completed, url: "http://h/a?x=1", received: 10, expected: 10, status: 200)
        task.outputPath = "/home/u/Downloads/report.pdf"
        var m = Fixtures.model(width: 80, height: 24, selecting: task)
        m.columnSet = .files
        let grid = ScreenRenderer.render(m)
        #expect((0..<grid.height).contains { grid.rowText($0).contains("report.pdf") })
    }
}
