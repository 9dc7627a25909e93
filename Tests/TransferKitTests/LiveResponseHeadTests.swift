import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// The monitor's detail pane shows a running task's response headers, so the live
/// transaction record has the head (status and headers) as soon as it arrived, not only when
/// the hop ends.
@Suite struct LiveResponseHeadTests {
    @Test func aRunningTransactionHasItsResponseHead() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        let task = session.dataTask(with: url("\(server.httpBase)/bytes/200000?gate=\(gate)&holdAfter=1000"))
        task.resume()
        try await waitUntil { task.metrics.transactionMetrics.first?.currentPhase == .receive }
        let live = try #require(task.metrics.transactionMetrics.first)
        #expect(task.state == .running)
        #expect(live.statusCode == 200)
        #expect(live.responseHeaders.contains { $0.name.lowercased() == "content-length" && $0.value == "200000" }, "\(live.responseHeaders)")
        server.openGate(gate)
        try await waitUntil { task.state == .completed }
        #expect(task.metrics.transactionMetrics.first?.responseHeaders == live.responseHeaders)
    }
}
