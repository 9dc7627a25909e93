import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// Trust: a task fetched with `-k` is marked in the error colour in the header
/// (counted), in its RESULT cell and in its detail pane.
@Suite struct InsecureTLSViewTests {
    @Test func theHeaderTheRowAndTheDetailSayTLSWasNotVerified() throws {
        var metrics = Fixtures.hop("https://self-signed.test/a", start: 0, status: 200, phases: [1, 1, 1, 1, 1, 1])
        metrics.transactionMetrics[0].isTLSVerified = false
        let insecure = Fixtures.task(1, 9, .completed, url: "https://self-signed.test/a", received: 10, expected: 10,
                                     status: 200, proto: "http/1.1", metrics: metrics)
        let m = Fixtures.model(width: 120, height: 40, selecting: insecure)
        let grid = ScreenRenderer.render(m)

        let header = grid.rowText(0)
        let at = try #require(header.range(of: "TLS NOT VERIFIED (1)"))
        let column = header.distance(from: header.startIndex, to: at.lowerBound)
        #expect(grid[column, 0].role == .error)

        let row = try #require((0..<grid.height).first { grid.rowText($0).contains("1.9 ") })
        #expect(grid.rowText(row).contains("ok !tls"))
        #expect(ScreenRenderer.detailContent(m).contains { $0.first?.text.hasPrefix("TLS NOT VERIFIED") == true })
    }

    /// DECISIONS 110: a `-k` run says so from its first frame, before any hop has completed;
    /// a run without `-k` and without unverified hops shows nothing.
    @Test func theHeaderSaysSoFromTheStartOfAnInsecureRun() throws {
        var m = Fixtures.model(width: 120, height: 40)
        #expect(!ScreenRenderer.render(m).rowText(0).contains("TLS NOT VERIFIED"))
        m.insecureConfiguration = true
        let grid = ScreenRenderer.render(m)
        let header = grid.rowText(0)
        let at = try #require(header.range(of: "TLS NOT VERIFIED (-k)"))
        #expect(grid[header.distance(from: header.startIndex, to: at.lowerBound), 0].role == .error)
    }
}
