import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// A slow data delegate must not make the engine buffer the whole body in memory.
@Suite struct BackpressureTests {
    final class SlowDelegate: TransferDataDelegate, @unchecked Sendable {
        // @unchecked: guarded by `state`.
        let state = Locked((delivered: Int64(0), done: false, maxLag: Int64(0)))
        weak var task: TransferTask?
        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {
            usleep(15_000)  // a delegate slower than the network
            let received = dataTask.countOfBytesReceived
            state.withLock { s in
                s.delivered += Int64(data.count)
                s.maxLag = max(s.maxLag, received - s.delivered)
            }
        }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            state.withLock { $0.done = true }
        }
    }

    @Test func slowDelegatePausesTheTransferAndBoundsBufferedBytes() async throws {
        let server = try await TestServer.get()
        let size = 48 * 1024 * 1024
        let d = SlowDelegate()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: d)
        session.dataTask(with: url("\(server.httpBase)/bytes/\(size)")).resume()
        try await waitUntil() { d.state.withLock { $0.done } }
        let s = d.state.withLock { $0 }
        #expect(s.delivered == Int64(size), "every byte delivered")
        // Received but not yet consumed: at most the high-water chunks plus one libcurl buffer.
        let bound = Int64(TransferEngine.highWater + 2) * Int64(TransferEngine.deliveryChunk)
        #expect(s.maxLag <= bound, "lag \(s.maxLag) bytes")
        #expect(bound < Int64(size) / 2, "the bound is meaningful for this body size")
        session.finishTasksAndInvalidate()
    }
}
