import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// The detail pane says where a response came from when the cache took part,
/// as the CSV's `fetch_type` column does; a network load adds no line.
@Suite struct CacheFetchViewTests {
    func detail(_ change: (inout TransactionMetrics) -> Void) -> [String] {
        var metrics = Fixtures.hop("http://cache.test/a", start: 0, status: 200, phases: [1, 1, 1, 1, 1, 1])
        change(&metrics.transactionMetrics[0])
        let task = Fixtures.task(1, 9, .completed, url: "http://cache.test/a", received: 10, expected: 10,
                                 status: 200, proto: "http/1.1", metrics: metrics)
        let m = Fixtures.model(width: 120, height: 40, selecting: task)
        return ScreenRenderer.detailContent(m).map { $0.map(\.text).joined() }
    }

    @Test func localCacheRevalidatedAndNetwork() {
        #expect(detail { $0.resourceFetchType = .localCache }.contains("fetch: local cache (no request was sent)"))
        #expect(detail { $0.isRevalidated = true; $0.statusCode = 304 }
            .contains("fetch: revalidated (the server answered 304; the body came from the cache)"))
        #expect(!detail { _ in }.contains { $0.hasPrefix("fetch: ") })
    }
}
