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

/// The completion event says what the RESULT column says: a 404 is not "ok".
@Suite struct CompletionEventTests {
    final class Outcomes: TransferObserver, @unchecked Sendable {
        let details = Locked<[Int: String]>([:])
        func transferSession(_ session: TransferSession, didEmit event: TransferEvent) {
            guard case .taskStateChanged(.completed) = event.kind, let id = event.taskIdentifier else { return }
            details.withLock { $0[id] = event.detail }
        }
    }

    @Test func theCompletionEventNamesAnHTTPErrorStatusAndATransferError() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let outcomes = Outcomes()
        session.addObserver(outcomes)
        let ok = session.dataTask(with: url("\(server.httpBase)/bytes/10"))
        let missing = session.dataTask(with: url("\(server.httpBase)/status/404"))
        let refused = session.dataTask(with: url("http://127.0.0.1:9/nothing-listens"))
        for t in [ok, missing, refused] { t.resume() }
        try await waitUntil("three completion events") { outcomes.details.withLock { $0.count } == 3 }
        let details = outcomes.details.withLock { $0 }
        #expect(details[ok.taskIdentifier] == "ok")
        #expect(details[missing.taskIdentifier] == "HTTP 404")
        #expect(details[refused.taskIdentifier] == "error: cannotConnectToHost")
    }

    @Test(arguments: [
        (nil, nil, "ok"), (nil, 200, "ok"), (nil, 304, "ok"), (nil, 404, "HTTP 404"), (nil, 503, "HTTP 503"),
        (TransferError.Code.cancelled, 200, "cancelled"), (.timedOut, nil, "error: timedOut"), (.timedOut, 500, "error: timedOut"),
    ] as [(TransferError.Code?, Int?, String)])
    func outcomeText(_ code: TransferError.Code?, _ status: Int?, _ text: String) {
        #expect(TaskOutcome.text(error: code.map { TransferError($0, "x") }, statusCode: status) == text)
    }
}
