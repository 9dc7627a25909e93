import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Observers' progress events carry the bytes moved since the previous event (as
/// `TransferEvent.Kind.progress` says), so adding them up gives the bytes the task moved: what
/// line mode's progress line and the Prometheus byte counters do. They carried running totals,
/// and a 1 GiB upload showed 6.3 GiB on the progress line.
@Suite struct ProgressEventTests {
    final class Adder: TransferObserver, @unchecked Sendable {
        let sums = Locked<[Int: (received: Int64, sent: Int64)]>([:])
        func transferSession(_ session: TransferSession, didEmit event: TransferEvent) {
            guard case .progress(let r, let s) = event.kind, let id = event.taskIdentifier else { return }
            sums.withLock { $0[id, default: (0, 0)].received += r; $0[id, default: (0, 0)].sent += s }
        }
    }

    @Test func theEventsOfATaskAddUpToTheBytesItMoved() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let adder = Adder()
        session.addObserver(adder)
        // A body of many events, one of one event (it ends within the first interval), an upload.
        let big = session.dataTask(with: url("\(server.httpBase)/drip?size=400000&rate=2000000&seed=1"))
        let small = session.dataTask(with: url("\(server.httpBase)/bytes/1000?seed=2"))
        var put = TransferRequest(url: url("\(server.httpBase)/echo"))
        put.httpMethod = "PUT"
        let upload = session.uploadTask(with: put, from: Data(LoopbackServer.body(size: 300_000, seed: 3)))
        for t in [big, small, upload] as [TransferTask] { t.resume() }
        try await waitUntil("all completed") { [big, small, upload].allSatisfy { $0.state == .completed } }
        let sums = adder.sums.withLock { $0 }
        #expect(sums[big.taskIdentifier]?.received == 400_000)
        #expect(sums[small.taskIdentifier]?.received == 1000)
        #expect(sums[upload.taskIdentifier]?.sent == 300_000)
        #expect(sums[upload.taskIdentifier]?.received == upload.countOfBytesReceived)
    }
}
