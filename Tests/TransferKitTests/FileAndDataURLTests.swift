import Foundation
import FoundationNetworking
import TestSupport
import Testing
@testable import TransferKit

/// file:// and data: URLs as tasks: the bytes, the response without a
/// status code, progress, metrics and the typed errors.
@Suite struct FileAndDataURLTests {
    private func directory() throws -> String {
        let dir = NSTemporaryDirectory() + "tk-schemes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    private func randomBytes(_ n: Int) -> Data {
        var g = SystemRandomNumberGenerator()
        return Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    @Test func fileDataTaskDeliversTheBytesWithAResponseWithoutStatus() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let body = Data("hello, file\n".utf8)
        try body.write(to: URL(fileURLWithPath: dir + "/note.txt"))
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(from: URL(fileURLWithPath: dir + "/note.txt"))
        #expect(data == body)
        #expect(response.statusCode == 0 && !response.hasStatusCode && response.isSuccessful)
        #expect(response.mimeType == "text/plain")
        #expect(response.expectedContentLength == Int64(body.count))
        #expect(response.networkProtocolName == "file")
        #expect(response.value(forHTTPHeaderField: "Last-Modified")?.hasSuffix(" GMT") == true)
        // URLSession's face: a plain URLResponse, not an HTTPURLResponse.
        let plain = response.urlResponse
        #expect(!(plain is HTTPURLResponse))
        #expect(plain.mimeType == "text/plain" && plain.expectedContentLength == body.count)
    }

    @Test func fileDownloadReportsProgressAndMetricsAndIsByteExact() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let body = randomBytes(3 * 1024 * 1024 + 17)
        try body.write(to: URL(fileURLWithPath: dir + "/big.bin"))
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.invalidateAndCancel() }
        let task = session.downloadTask(with: URL(fileURLWithPath: dir + "/big.bin"))
        task.resume()
        try await rec.waitForCompletion()
        #expect(rec.error == nil)
        let (downloaded, writes, metrics) = rec.state.withLock { ($0.downloaded, $0.writes, $0.metrics) }
        #expect(downloaded.map(sha256) == sha256(body))
        #expect(writes == Int64(body.count), "didWriteData reached the whole file")
        #expect(task.countOfBytesExpectedToReceive == Int64(body.count))
        let snapshot = task.snapshot()
        #expect(snapshot.statusCode == nil, "no status code: the monitor and CSV show none")
        let m = try #require(metrics?.transactionMetrics.last)
        #expect(metrics?.transactionMetrics.count == 1)
        #expect(m.networkProtocolName == "file")
        #expect(m.statusCode == nil)
        #expect(m.countOfResponseBodyBytesReceived == Int64(body.count))
        #expect(m.responseStartDate != nil && m.responseEndDate != nil)
        #expect(m.domainLookupStartDate == nil && m.connectStartDate == nil, "no network phases for a local file")
        #expect(!m.isReusedConnection && m.localPort == nil)
        let events = rec.events
        #expect(events.firstIndex(of: "didWriteData")! < events.firstIndex(of: "didFinishDownloading")!)
        #expect(events.suffix(2) == ["metrics", "complete"])
    }

    @Test func aMissingFileIsFileDoesNotExistAndADirectoryIsFileIsDirectory() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        do {
            _ = try await session.data(from: URL(fileURLWithPath: dir + "/missing.bin"))
            Issue.record("a missing file must fail")
        } catch {
            #expect(error.code == .fileDoesNotExist)
            #expect(error.message.contains("missing.bin") && error.message.contains("does not exist"))
            #expect(error.urlError.code == .fileDoesNotExist)
        }
        do {
            _ = try await session.download(for: TransferRequest(url: URL(fileURLWithPath: dir)))
            Issue.record("a directory must fail")
        } catch {
            #expect(error.code == .fileIsDirectory)
            #expect(error.message.contains("is a directory"))
            #expect(error.urlError.code == .fileIsDirectory)
        }
        do {
            _ = try await session.data(from: URL(string: "file://elsewhere.example/etc/hosts")!)
            Issue.record("a remote host in a file URL must fail")
        } catch {
            #expect(error.code == .badURL)
        }
    }

    @Test(arguments: [
        // URL, body, mimeType, textEncodingName
        ("data:,Hello%2C%20World!", "Hello, World!", "text/plain", "us-ascii"),
        ("data:text/plain;base64,SGVsbG8sIFdvcmxkIQ==", "Hello, World!", "text/plain", nil),
        ("data:text/html;charset=UTF-8,%3Ch1%3Ehi%3C%2Fh1%3E", "<h1>hi</h1>", "text/html", "utf-8"),
        ("data:;charset=iso-8859-1;base64,w6k=", "\u{C3}\u{A9}", "text/plain", "iso-8859-1"),
        ("data:application/json,%7B%22a%22%3A1%7D", "{\"a\":1}", "application/json", nil),
    ] as [(String, String, String, String?)])
    func dataURLs(_ text: String, _ body: String, _ mime: String, _ charset: String?) async throws {
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(from: URL(string: text)!)
        let expected = charset == "iso-8859-1" ? Data([0xC3, 0xA9]) : Data(body.utf8)
        #expect(data == expected)
        #expect(response.mimeType == mime)
        #expect(response.textEncodingName == charset)
        #expect(response.statusCode == 0)
        #expect(response.expectedContentLength == Int64(expected.count))
        #expect(response.suggestedFilename.hasPrefix("data."))
        let plain = response.urlResponse
        #expect(plain.mimeType == mime && plain.textEncodingName == charset)
    }

    @Test func aDataURLDownloadTaskHasProgressAndMetrics() async throws {
        let payload = randomBytes(200_000)
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.invalidateAndCancel() }
        let link = URL(string: "data:application/octet-stream;base64," + payload.base64EncodedString())!
        session.downloadTask(with: link).resume()
        try await rec.waitForCompletion()
        #expect(rec.error == nil)
        let (downloaded, writes, metrics) = rec.state.withLock { ($0.downloaded, $0.writes, $0.metrics) }
        #expect(downloaded == payload)
        #expect(writes == Int64(payload.count))
        let m = try #require(metrics?.transactionMetrics.last)
        #expect(m.networkProtocolName == "data" && m.statusCode == nil)
        #expect(m.countOfResponseBodyBytesReceived == Int64(payload.count))
    }

    @Test(arguments: [
        "data:text/plain;base64,%%%",
        "data:text/plain;base64,A",
        "data:nocomma",
        "data:text/plain;foo,x",
        "data:text;plain,x",
    ])
    func malformedDataURLsFailWithBadURL(_ text: String) async throws {
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        guard let link = URL(string: text) else {
            Issue.record("URL(string:) refused \(text): the table needs URLs Foundation accepts")
            return
        }
        do {
            _ = try await session.data(from: link)
            Issue.record("\(text) must fail")
        } catch {
            #expect(error.code == .badURL)
            #expect(error.message.hasPrefix("malformed data: URL: "), "\(error.message)")
        }
    }

    @Test func foundationFaceGivesAURLResponseForDataURLs() async throws {
        let session = TransferURLSession(transferConfiguration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(from: URL(string: "data:text/plain;charset=utf-8,caf%C3%A9")!)
        #expect(String(decoding: data, as: UTF8.self) == "café")
        #expect(!(response is HTTPURLResponse))
        #expect(response.mimeType == "text/plain" && response.textEncodingName == "utf-8")
    }

    @Test func uploadsAndOtherMethodsAreRefusedForFileAndDataURLs() async throws {
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        var request = TransferRequest(url: URL(string: "data:,x")!)
        request.httpMethod = "DELETE"
        do {
            _ = try await session.data(for: request)
            Issue.record("DELETE of a data: URL must fail")
        } catch {
            #expect(error.code == .invalidRequest)
        }
        do {
            _ = try await session.upload(for: TransferRequest(url: URL(fileURLWithPath: "/tmp/x")), from: Data("x".utf8))
            Issue.record("an upload to a file: URL must fail")
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    /// libcurl 7.88 copies a file inside one perform call: a slow data delegate must not turn
    /// into CURLE_WRITE_ERROR (the file protocol cannot pause), and every byte arrives in order.
    /// A device that never ends: libcurl copies it inside one perform, where the timer scan
    /// cannot reach, so the copy itself stops at the size limit and at the resource timeout.
    @Test func anEndlessDeviceStopsAtTheSizeLimit() async throws {
        let session = TransferSession(configuration: ephemeralConfig { $0.maximumContentLength = 1 << 20 })
        defer { session.invalidateAndCancel() }
        await #expect { _ = try await session.data(from: URL(fileURLWithPath: "/dev/zero")) } throws: { error in
            (error as? TransferError)?.code == .dataLengthExceedsMaximum
        }
    }

    @Test func anEndlessDeviceStopsAtTheResourceTimeout() async throws {
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForResource = 0.2 })
        defer { session.invalidateAndCancel() }
        await #expect { _ = try await session.download(for: TransferRequest(url: URL(fileURLWithPath: "/dev/zero"))) } throws: { error in
            (error as? TransferError)?.code == .timedOut
        }
    }

    @Test func aDelegateDataTaskOfALargeFileNeverPausesLibcurl() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let body = randomBytes(40 * 1024 * 1024 + 3)  // more than 16 chunks of 1 MiB in flight
        try body.write(to: URL(fileURLWithPath: dir + "/large.bin"))
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: URL(fileURLWithPath: dir + "/large.bin")).resume()
        try await rec.waitForCompletion()
        #expect(rec.error == nil, "\(String(describing: rec.error))")
        #expect(sha256(rec.data) == sha256(body))
        let events = rec.events
        #expect(events.first == "response 0" && events.suffix(2) == ["metrics", "complete"])
    }
}
