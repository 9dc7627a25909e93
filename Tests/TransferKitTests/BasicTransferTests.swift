import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

@Suite struct BasicTransferTests {
    @Test func dataTaskWithCompletionHandlerGetsTheWholeBody() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let box = Box<(Data?, TransferResponse?, TransferError?)>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/100000"))) { box.set(($0, $1, $2)) }
        #expect(task.state == .suspended)
        task.resume()
        let (data, response, error) = try await box.wait()
        #expect(error == nil)
        #expect(response?.statusCode == 200)
        #expect(data.map(sha256) == sha256(expectedBody(100_000)))
        #expect(task.state == .completed)
        #expect(task.countOfBytesReceived == 100_000)
        session.finishTasksAndInvalidate()
    }

    @Test func asyncDataForRequest() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let (data, response) = try await session.data(from: url("\(server.httpBase)/bytes/5000?chunked=1"))
        #expect(response.statusCode == 200)
        #expect(sha256(data) == sha256(expectedBody(5000)))
        session.finishTasksAndInvalidate()
    }

    @Test func serverErrorsAreResponsesNotErrors() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let (_, r404) = try await session.data(from: url("\(server.httpBase)/status/404"))
        #expect(r404.statusCode == 404)
        let (_, r503) = try await session.data(from: url("\(server.httpBase)/status/503"))
        #expect(r503.statusCode == 503)
        session.finishTasksAndInvalidate()
    }

    @Test func delegateDataTaskCallOrder() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        session.dataTask(with: url("\(server.httpBase)/bytes/300000")).resume()
        try await rec.waitForCompletion()
        #expect(rec.events == ["response 200", "data", "metrics", "complete"])
        #expect(sha256(rec.data) == sha256(expectedBody(300_000)))
        session.finishTasksAndInvalidate()
    }

    @Test func dataTaskBecomesADownloadTask() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        rec.disposition = .becomeDownload
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let dataTask = session.dataTask(with: url("\(server.httpBase)/bytes/3000000"))
        dataTask.resume()
        try await rec.waitForCompletion()
        #expect(rec.events == ["response 200", "didBecomeDownloadTask", "didWriteData", "didFinishDownloading", "metrics", "complete"])
        #expect(rec.state.withLock { $0.downloaded }.map(sha256) == sha256(expectedBody(3_000_000)))
        #expect(dataTask.state == .completed)
        let download = try #require(session.heldTasks.last as? TransferDownloadTask)
        #expect(download.taskIdentifier != dataTask.taskIdentifier)
        #expect(download.countOfBytesReceived == 3_000_000)
        session.finishTasksAndInvalidate()
        try await waitUntil { session.state == .invalidated }
    }

    @Test func completionHandlerTaskSkipsDelegateResponseAndData() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let box = Box<Data>()
        session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/1000"))) { d, _, _ in box.set(d ?? Data()) }.resume()
        #expect(try await box.wait().count == 1000)
        try await waitUntil { rec.events.contains("metrics") }
        #expect(!rec.events.contains { $0.hasPrefix("response") || $0 == "data" || $0 == "complete" })
        session.finishTasksAndInvalidate()
    }

    @Test func downloadDelegateOrderAndFileIsDeletedAfterHandOver() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let task = session.downloadTask(with: url("\(server.httpBase)/bytes/2000000"))
        task.resume()
        try await rec.waitForCompletion()
        #expect(rec.events == ["didWriteData", "didFinishDownloading", "metrics", "complete"])
        #expect(rec.state.withLock { $0.downloaded }.map(sha256) == sha256(expectedBody(2_000_000)))
        session.finishTasksAndInvalidate()
    }

    @Test func asyncDownloadReturnsAFileTheCallerOwns() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let (file, response) = try await session.download(for: TransferRequest(url: url("\(server.httpBase)/bytes/70000")))
        #expect(response.statusCode == 200)
        #expect(FileManager.default.contents(atPath: file.path).map(sha256) == sha256(expectedBody(70_000)))
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try FileManager.default.removeItem(at: file)
        session.finishTasksAndInvalidate()
    }

    @Test func uploadFromBytesIsEchoed() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let body = Data((0..<100_000).map { UInt8($0 % 251) })
        var req = TransferRequest(url: url("\(server.httpBase)/echo"), httpMethod: "POST")
        req.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await session.upload(for: req, from: body)
        #expect(response.statusCode == 200)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(json?["method"] as? String == "POST")
        #expect((json?["bodyLength"] as? NSNumber)?.intValue == 100_000)
        #expect(json?["bodySHA256"] as? String == sha256(body))
        session.finishTasksAndInvalidate()
    }

    @Test func additionalHeadersAreSentUnlessTheRequestSetsThem() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.httpAdditionalHeaders = [HTTPHeader("X-Extra", "config"), HTTPHeader("X-Both", "config")]
        })
        var req = TransferRequest(url: url("\(server.httpBase)/headers"))
        req.setValue("request", forHTTPHeaderField: "X-Both")
        let (data, _) = try await session.data(for: req)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("config"))
        #expect(text.contains("request"))
        #expect(!text.contains("\"X-Both\",\"config\"") && !text.contains("[\"x-both\",\"config\"]"))
        session.finishTasksAndInvalidate()
    }
}
