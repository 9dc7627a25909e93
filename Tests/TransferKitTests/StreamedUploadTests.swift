import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Uploads whose body comes from a stream the delegate gives (URLSession's
/// `uploadTask(withStreamedRequest:)` and `needNewBodyStream`), sent as it arrives.
@Suite struct StreamedUploadTests {
    /// Gives each `needNewBodyStream` the next stream of `streams` (nil when they run out) and
    /// collects the answer.
    final class Streamer: TransferDataDelegate, @unchecked Sendable {
        let streams: Locked<[InputStream]>
        let asked = Locked(0)
        let body = Locked(Data())
        let done = Locked<TransferError??>(nil)
        init(_ streams: [InputStream]) { self.streams = Locked(streams) }

        func session(_ session: TransferSession, task: TransferTask,
                     needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
            asked.withLock { $0 += 1 }
            completionHandler(streams.withLock { $0.isEmpty ? nil : $0.removeFirst() })
        }
        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {
            body.withLock { $0.append(data) }
        }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            done.withLock { $0 = .some(error) }
        }
    }

    struct Echo: Decodable { var method: String; var bodyLength: Int64; var bodySHA256: String }

    /// A pipe the test writes in steps: the first step is sent before the rest exists.
    @Test func aBodyFromAPipeIsSentAsItArrives() async throws {
        let server = try await TestServer.get()
        let pipe = Pipe()
        let stream = try #require(InputStream(fileAtPath: "/proc/self/fd/\(pipe.fileHandleForReading.fileDescriptor)"))
        let streamer = Streamer([stream])
        let session = TransferSession(configuration: ephemeralConfig(), delegate: streamer)
        defer { session.finishTasksAndInvalidate() }
        var request = TransferRequest(url: url("\(server.httpBase)/echo"))
        request.httpMethod = "POST"
        let task = session.uploadTask(withStreamedRequest: request)
        #expect(task.countOfBytesExpectedToSend == -1)
        task.resume()
        let first = Data(LoopbackServer.body(size: 300_000, seed: 1))
        let second = Data(LoopbackServer.body(size: 200_000, seed: 2))
        pipe.fileHandleForWriting.write(first)
        try await waitUntil("the first part sent") { task.countOfBytesSent >= Int64(first.count) }
        #expect(task.state == .running)
        pipe.fileHandleForWriting.write(second)
        try pipe.fileHandleForWriting.close()
        try await waitUntil("completed") { streamer.done.withLock { $0 } != nil }
        #expect(streamer.done.withLock { $0 } == .some(nil))
        let echo = try JSONDecoder().decode(Echo.self, from: streamer.body.withLock { $0 })
        #expect(echo.method == "POST" && echo.bodyLength == 500_000)
        #expect(echo.bodySHA256 == sha256(first + second))
        #expect(streamer.asked.withLock { $0 } == 1)
        #expect(task.countOfBytesSent == 500_000)
    }

    /// A 307 must send the body again: the delegate is asked for a new stream, as Apple's is.
    @Test func aRedirectThatKeepsTheBodyAsksForANewStream() async throws {
        let server = try await TestServer.get()
        let body = Data(LoopbackServer.body(size: 70_000, seed: 9))
        let streamer = Streamer([InputStream(data: body), InputStream(data: body)])
        let session = TransferSession(configuration: ephemeralConfig(), delegate: streamer)
        defer { session.finishTasksAndInvalidate() }
        var request = TransferRequest(url: url("\(server.httpBase)/redirect-method?status=307"))
        request.httpMethod = "PUT"
        session.uploadTask(withStreamedRequest: request).resume()
        try await waitUntil("completed") { streamer.done.withLock { $0 } != nil }
        #expect(streamer.done.withLock { $0 } == .some(nil))
        #expect(streamer.asked.withLock { $0 } == 2)
        let echo = try JSONDecoder().decode(Echo.self, from: streamer.body.withLock { $0 })
        #expect(echo.method == "PUT" && echo.bodyLength == 70_000 && echo.bodySHA256 == sha256(body))
    }

    @Test func noStreamFailsTheTaskWithRequestBodyStreamExhausted() async throws {
        let server = try await TestServer.get()
        let streamer = Streamer([])
        let session = TransferSession(configuration: ephemeralConfig(), delegate: streamer)
        defer { session.finishTasksAndInvalidate() }
        session.uploadTask(withStreamedRequest: TransferRequest(url: url("\(server.httpBase)/echo"))).resume()
        try await waitUntil("completed") { streamer.done.withLock { $0 } != nil }
        #expect(streamer.done.withLock { $0 }??.code == .requestBodyStreamExhausted)
    }
}
