import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// The idle timer is per task: a stalled task times out on time while its siblings in the
/// same session keep moving bytes.
@Suite struct IdleTimeoutAmongBusyTasksTests {
    @Test func stalledTaskTimesOutWhileSiblingsDrip() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForRequest = 1 })
        let drip = session.downloadTask(with: url("\(server.httpBase)/drip?size=200000&rate=50000"))
        drip.resume()
        let start = Date()
        let box = Box<(TransferError?, Date)>()
        session.downloadTask(with: TransferRequest(url: url("\(server.httpBase)/stall?size=1000000&after=65536"))) { _, _, e in
            box.set((e, Date()))
        }.resume()
        let (error, at) = try await box.wait()
        #expect(error?.code == .timedOut)
        let elapsed = at.timeIntervalSince(start)
        #expect(elapsed >= 1 && elapsed < 3.5, "stalled task failed after \(elapsed) s")
        session.invalidateAndCancel()
    }
}
