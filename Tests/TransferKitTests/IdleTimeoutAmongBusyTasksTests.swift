import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// The idle timer is per task: a stalled task times out on time while its siblings in the
/// same session keep moving bytes.
@Suite struct IdleTimeoutAmongBusyTasksTests {
    @Test func stalledTaskTimesOutWhileSiblingsDrip() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForRequest = 2 })
        // The sibling drips for minutes (cancelled at the end): it is still moving bytes when
        // the stalled task's timer fires, however late that is on a loaded machine.
        let drip = session.downloadTask(with: url("\(server.httpBase)/drip?size=20000000&rate=50000"))
        drip.resume()
        let start = Date()
        let box = Box<(TransferError?, Date)>()
        session.downloadTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/1000000?gate=\(UUID().uuidString)&holdAfter=65536"))) { _, _, e in
            box.set((e, Date()))
        }.resume()
        let (error, at) = try await box.wait()
        #expect(error?.code == .timedOut)
        let elapsed = at.timeIntervalSince(start)
        // Real time: a lower bound, and a wide upper bound (only a bug takes a minute).
        #expect(elapsed >= 2 && elapsed < 60, "stalled task failed after \(elapsed) s")
        session.invalidateAndCancel()
    }
}
