import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// multipart/x-mixed-replace: one `didReceive response` per part, then that part's data
/// (DECISIONS 68).
@Suite struct MultipartReplaceTests {
    /// Records responses and data in order, as one list.
    final class PartRecorder: TransferDataDelegate, @unchecked Sendable {
        // @unchecked: mutable state behind locks.
        enum Item: Equatable { case response(TransferResponse), data(Data) }
        let items = Locked<[Item]>([])
        let done = Box<TransferError?>()
        let dispositionFor: @Sendable (Int) -> ResponseDisposition
        init(dispositionFor: @escaping @Sendable (Int) -> ResponseDisposition = { _ in .allow }) {
            self.dispositionFor = dispositionFor
        }
        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                     completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
            let n = items.withLock { i -> Int in
                i.append(.response(response))
                return i.filter { if case .response = $0 { return true } else { return false } }.count
            }
            completionHandler(dispositionFor(n))
        }
        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {
            items.withLock { i in
                if case .data(let d)? = i.last { i[i.count - 1] = .data(d + data) } else { i.append(.data(data)) }
            }
        }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            done.set(error)
        }
    }

    @Test func eachPartIsAResponseFollowedByItsData() async throws {
        let server = try await TestServer.get()
        let rec = PartRecorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: url("\(server.httpBase)/mixed-replace?parts=3&size=70000&seed=10"))
        task.resume()
        #expect(try await rec.done.wait() == nil)
        let items = rec.items.withLock { $0 }
        try #require(items.count == 6, "response, data × 3: \(items.count) items")
        for i in 0..<3 {
            guard case .response(let r) = items[2 * i], case .data(let d) = items[2 * i + 1] else {
                Issue.record("item \(2 * i) is not a response followed by data")
                continue
            }
            #expect(r.value(forHTTPHeaderField: "X-Part") == "\(i)")
            #expect(r.mimeType == "application/octet-stream")
            #expect(r.expectedContentLength == 70000)
            #expect(r.statusCode == 200)
            #expect(d == expectedBody(70000, seed: UInt8(10 + i)))
        }
        #expect(task.response?.mimeType == "multipart/x-mixed-replace", "the task's response is the outer one")
    }

    @Test func cancelFromAPartsDispositionEndsTheTask() async throws {
        let server = try await TestServer.get()
        let gate = UUID().uuidString
        let rec = PartRecorder(dispositionFor: { $0 == 1 ? .cancel : .allow })
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        // The last part's bytes wait at the gate: the task can only end by the cancel.
        session.dataTask(with: url("\(server.httpBase)/mixed-replace?parts=2&size=10&streamLast=1&gate=\(gate)&holdAfter=0")).resume()
        let error = try await rec.done.wait()
        server.openGate(gate)
        #expect(error?.code == .cancelled)
        let responses = rec.items.withLock { $0 }.filter { if case .response = $0 { return true } else { return false } }
        #expect(responses.count >= 1)
    }

    @Test func anUnclosedLastPartIsDeliveredWhole() async throws {
        let server = try await TestServer.get()
        let rec = PartRecorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: url("\(server.httpBase)/mixed-replace?parts=2&size=300000&seed=3&streamLast=1")).resume()
        #expect(try await rec.done.wait() == nil)
        let items = rec.items.withLock { $0 }
        try #require(items.count == 4)
        #expect(items[3] == .data(expectedBody(300_000, seed: 4)), "the bytes held back for a delimiter are flushed at the end")
    }

    @Test func completionHandlerTasksGetTheWholeBody() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: url("\(server.httpBase)/mixed-replace?parts=2&size=5"))
        #expect(response.mimeType == "multipart/x-mixed-replace")
        #expect(String(decoding: data, as: UTF8.self).hasSuffix("--frame--\r\n"))
    }
}
