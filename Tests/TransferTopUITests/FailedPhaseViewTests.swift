import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// The phase a hop failed in is named where its time would be: `✗` and its time in its
/// column, `tls 22ms ✗` in the waterfall, a shaded bar segment that reads without colour;
/// a failed handshake's connect is not drawn as a zero-length connect.
@Suite struct FailedPhaseViewTests {
    /// DNS 3 ms, then a TLS handshake that failed at 25 ms (7.88 gives no TCP end).
    static func tlsFailed() -> TaskSnapshot {
        var t = TransactionMetrics(method: "GET", url: "https://bad-tls.test/", fetchStartDate: Fixtures.at(0),
                                   domainLookupStartDate: Fixtures.at(0), domainLookupEndDate: Fixtures.at(3),
                                   connectStartDate: Fixtures.at(3), secureConnectionStartDate: Fixtures.at(3),
                                   currentPhase: .done, errorDescription: "TLS handshake failed")
        t.networkProtocolName = nil
        let metrics = TaskMetrics(taskIntervalStart: Fixtures.at(0), taskIntervalEnd: Fixtures.at(25), redirectCount: 0,
                                  transactionMetrics: [t])
        return Fixtures.task(1, 7, .completed, url: "https://bad-tls.test/", kind: .data,
                             error: TransferError(.secureConnectionFailed, "TLS handshake failed"), metrics: metrics)
    }

    /// DNS 1 ms, then a connect refused after 0.4 ms.
    static func refused() -> TaskSnapshot {
        let t = TransactionMetrics(method: "GET", url: "http://127.0.0.1:1/", fetchStartDate: Fixtures.at(0),
                                   domainLookupStartDate: Fixtures.at(0), domainLookupEndDate: Fixtures.at(1),
                                   connectStartDate: Fixtures.at(1), currentPhase: .done, errorDescription: "could not connect")
        let metrics = TaskMetrics(taskIntervalStart: Fixtures.at(0), taskIntervalEnd: Fixtures.at(1.4), redirectCount: 0,
                                  transactionMetrics: [t])
        return Fixtures.task(1, 8, .completed, url: "http://127.0.0.1:1/", kind: .data,
                             error: TransferError(.cannotConnectToHost, "could not connect"), metrics: metrics)
    }

    static func cells(_ task: TaskSnapshot, utf8: Bool = true) -> [String] {
        let hops = Waterfall.hops(task.metrics, now: Fixtures.at(350))
        return [WaterfallPhase.dns, .connect, .tls, .wait].map { phase in
            TaskPhases.cell(phase, hops: hops, width: phase == .connect ? 6 : 5, utf8: utf8).map(\.text).joined()
        }
    }

    @Test func theFailedPhaseIsNamedInItsColumn() {
        #expect(Self.cells(Self.tlsFailed()) == ["3.0ms", "-", "✗22ms", "-"])
        #expect(Self.cells(Self.refused()) == ["1.0ms", "✗0.4ms", "-", "-"])
        #expect(Self.cells(Self.tlsFailed(), utf8: false) == ["3.0ms", "-", "x22ms", "-"])
        let hops = Waterfall.hops(Self.tlsFailed().metrics, now: Fixtures.at(350))
        #expect(TaskPhases.cell(.tls, hops: hops, width: 5).allSatisfy { $0.role == .error })
    }

    @Test func theWaterfallNamesThePhaseThatFailed() throws {
        let m = Fixtures.model(width: 120, height: 40, selecting: Self.tlsFailed())
        let detail = ScreenRenderer.detailContent(m).map { $0.map(\.text).joined() }
        let hop = try #require(detail.first { $0.contains("#1 ---") })
        #expect(hop.contains("dns 3ms tls 22ms ✗ failed"), "\(detail)")
        #expect(!hop.contains("tcp"), "no zero-length connect: \(hop)")
        // The bar's failed part is shaded, so it reads without colour too.
        let line = WaterfallView.line(Waterfall.hops(Self.tlsFailed().metrics, now: m.now)[0], scaleMs: 25, barWidth: 25,
                                      utf8: true, monochrome: true)
        #expect(line.contains { $0.text.contains("▒") && $0.role == .barError })
    }

    @Test func theTableRowShowsIt() {
        let m = Fixtures.model(width: 120, height: 40, selecting: Self.refused())
        let grid = ScreenRenderer.render(m)
        let row = (0..<grid.height).map { grid.rowText($0) }.first { $0.contains("127.0.0.1:1") }
        #expect(row?.contains("✗0.4ms") == true, "\(String(describing: row))")
    }
}
