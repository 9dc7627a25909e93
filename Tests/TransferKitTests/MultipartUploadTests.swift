import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// A multipart/form-data body built from strings, bytes and files, streamed, with
/// its length known up front; parsed back by the loopback server's `/form` route.
@Suite struct MultipartUploadTests {
    struct Report: Decodable {
        struct Part: Decodable, Equatable {
            var name: String
            var filename: String?
            var contentType: String?
            var size: Int64
            var sha256: String
        }
        var bodyLength: Int64
        var parts: [Part]?
        var error: String?
    }

    func send(_ form: MultipartFormData, to target: URL) async throws -> (Report, TransferUploadTask) {
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let box = Locked<(Data?, TransferError?)?>(nil)
        let task = session.uploadTask(with: TransferRequest(url: target), fromMultipart: form) { data, _, error in
            box.withLock { $0 = (data, error) }
        }
        task.resume()
        try await waitUntil("the form's answer") { box.withLock { $0 } != nil }
        let (data, error) = try #require(box.withLock { $0 })
        #expect(error == nil)
        return (try JSONDecoder().decode(Report.self, from: try #require(data)), task)
    }

    @Test func fieldsBytesAndAFileArriveWholeWithTheirNamesAndTypes() async throws {
        let server = try await TestServer.get()
        let dir = NSTemporaryDirectory() + "tk-form-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fileBytes = Data(LoopbackServer.body(size: 3_000_000, seed: 5))
        try fileBytes.write(to: URL(fileURLWithPath: dir + "/report 2026.csv"))
        try Data().write(to: URL(fileURLWithPath: dir + "/empty.png"))

        var form = MultipartFormData()
        form.append("hello wörld", name: "greeting")
        form.append(Data([0, 13, 10, 45, 45, 255]), name: "raw", filename: "raw.bin", contentType: "application/x-test")
        try form.append(fileAt: URL(fileURLWithPath: dir + "/report 2026.csv"), name: "upload")
        try form.append(fileAt: URL(fileURLWithPath: dir + "/empty.png"), name: "nothing")
        form.append("a \"quoted\"\r\nname", name: "odd\"name")

        let (report, task) = try await send(form, to: url("\(server.httpBase)/form"))
        #expect(report.error == nil)
        #expect(report.bodyLength == form.layout.length)
        #expect(task.countOfBytesExpectedToSend == form.layout.length && task.countOfBytesSent == form.layout.length)
        #expect(report.parts == [
            .init(name: "greeting", filename: nil, contentType: nil, size: Int64("hello wörld".utf8.count),
                  sha256: sha256(Data("hello wörld".utf8))),
            .init(name: "raw", filename: "raw.bin", contentType: "application/x-test", size: 6,
                  sha256: sha256(Data([0, 13, 10, 45, 45, 255]))),
            .init(name: "upload", filename: "report 2026.csv", contentType: "text/csv", size: 3_000_000,
                  sha256: sha256(fileBytes)),
            .init(name: "nothing", filename: "empty.png", contentType: "image/png", size: 0, sha256: sha256(Data())),
            .init(name: "odd%22name", filename: nil, contentType: nil, size: 16,
                  sha256: sha256(Data("a \"quoted\"\r\nname".utf8))),
        ])
        let sent = try #require(task.currentRequest.headers.first(named: "Content-Type"))
        #expect(sent == "multipart/form-data; boundary=\(form.boundary)")
        #expect(task.currentRequest.httpMethod == "POST")
    }

    /// A 307 sends the form again from its first byte (the segments are read by offset).
    @Test func aRedirectThatKeepsTheBodySendsTheWholeFormAgain() async throws {
        let server = try await TestServer.get()
        let path = NSTemporaryDirectory() + "tk-form-307-\(UUID().uuidString.prefix(8)).bin"
        try Data(LoopbackServer.body(size: 200_000, seed: 6)).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        var form = MultipartFormData()
        form.append("x", name: "a")
        try form.append(fileAt: URL(fileURLWithPath: path), name: "f")
        let (report, task) = try await send(form, to: url("\(server.httpBase)/redirect-method?status=307"))
        #expect(report.bodyLength == form.layout.length)
        #expect(task.metrics.transactionMetrics.count == 2)
    }

    @Test func aFormFileThatIsNotThereIsRefusedWhenAppended() {
        var form = MultipartFormData()
        #expect(throws: TransferError.self) { try form.append(fileAt: URL(fileURLWithPath: "/nonexistent/x.bin"), name: "f") }
        #expect(throws: TransferError.self) { try form.append(fileAt: URL(fileURLWithPath: "/tmp"), name: "f") }
        #expect(form.parts.isEmpty)
    }

    /// The file went away between `append` and `resume`: the task fails with a clear error
    /// before sending, and nothing is left open.
    @Test func aFormFileRemovedBeforeTheSendFailsTheTask() async throws {
        let server = try await TestServer.get()
        let path = NSTemporaryDirectory() + "tk-form-gone-\(UUID().uuidString.prefix(8)).bin"
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        var form = MultipartFormData()
        try form.append(fileAt: URL(fileURLWithPath: path), name: "f")
        try FileManager.default.removeItem(atPath: path)
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let box = Locked<TransferError??>(nil)
        session.uploadTask(with: TransferRequest(url: url("\(server.httpBase)/form")), fromMultipart: form) { _, _, e in
            box.withLock { $0 = .some(e) }
        }.resume()
        try await waitUntil("completion") { box.withLock { $0 } != nil }
        let error = try #require(box.withLock { $0 } ?? nil)
        #expect(error.code == .cannotOpenFile)
        #expect(error.message.contains(path))
    }
}
