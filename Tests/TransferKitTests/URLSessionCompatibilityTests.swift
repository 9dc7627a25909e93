import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
import TransferKit

/// The one line a URLSession user changes: everything below it is written as for
/// Apple's URLSession (the snippets after the seeds' Objective-C examples and Apple's docs)
/// and runs against the loopback server.
private typealias URLSession = TransferURLSession

/// Typical URLSession code, unchanged.
private enum Snippets {
    /// NSURLSession's first example: a data task with a completion handler on the shared session.
    static func fetchText(_ url: URL, done: @escaping @Sendable (String?, Int?) -> Void) {
        let task = URLSession.shared.dataTask(with: url) { data, response, error in
            guard error == nil, let data, let http = response as? HTTPURLResponse else { return done(nil, nil) }
            done(String(data: data, encoding: .utf8), http.statusCode)
        }
        task.resume()
    }

    /// A JSON POST through URLRequest.
    static func postJSON(_ url: URL, _ object: [String: String]) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: object)
        request.timeoutInterval = 30
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (http.statusCode, try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:])
    }

    /// A download whose file is moved in the completion handler.
    static func download(_ url: URL, to destination: URL, done: @escaping @Sendable ((any Error)?, String?) -> Void) {
        let session = URLSession(configuration: .default)
        let task = session.downloadTask(with: url) { location, response, error in
            if let error { return done(error, nil) }
            guard let location else { return done(URLError(.unknown), nil) }
            do {
                try FileManager.default.moveItem(at: location, to: destination)
                done(nil, response?.suggestedFilename)
            } catch {
                done(error, nil)
            }
        }
        task.resume()
        session.finishTasksAndInvalidate()
    }

    /// An upload of bytes with a completion handler.
    static func upload(_ url: URL, _ body: Data, done: @escaping @Sendable (Int?) -> Void) {
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        URLSession.shared.uploadTask(with: request, from: body) { data, response, error in
            done((response as? HTTPURLResponse)?.statusCode)
        }.resume()
    }

    /// Streaming lines with async/await.
    static func lines(_ url: URL) async throws -> [String] {
        let (bytes, response) = try await URLSession.shared.bytes(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return [] }
        var lines: [String] = []
        for try await line in bytes.lines { lines.append(line) }
        return lines
    }

    /// Retrying a download from the resume data of each failure, the way Apple documents it.
    static func downloadRetrying(_ url: URL, session: URLSession, attempts: Int) async throws -> (URL, URLResponse, Int) {
        var resumeData: Data?
        for attempt in 1...attempts {
            do {
                let (file, response) = if let resumeData {
                    try await session.download(resumeFrom: resumeData)
                } else {
                    try await session.download(from: url)
                }
                return (file, response, attempt)
            } catch let error as URLError {
                guard let data = error.userInfo[NSURLSessionDownloadTaskResumeData] as? Data else { throw error }
                resumeData = data
            }
        }
        throw URLError(.networkConnectionLost)
    }
}

@Suite struct URLSessionCompatibilityTests {
    @Test func dataTaskWithCompletionHandler() async throws {
        let server = try await TestServer.get()
        let box = Box<(String?, Int?)>()
        Snippets.fetchText(URL(string: "\(server.httpBase)/status/418")!) { box.set(($0, $1)) }
        let (text, status) = try await box.wait()
        #expect(status == 418)
        #expect(text == "status 418\n")
    }

    @Test func postWithURLRequest() async throws {
        let server = try await TestServer.get()
        let (status, echo) = try await Snippets.postJSON(URL(string: "\(server.httpBase)/echo")!, ["a": "b"])
        #expect(status == 200)
        #expect(echo["method"] as? String == "POST")
        #expect(echo["bodyLength"] as? Int == 9)
        let headers = (echo["headers"] as? [[String]] ?? []).map { [$0[0].lowercased(), $0[1]] }
        #expect(headers.contains(["content-type", "application/json"]))
    }

    @Test func downloadMovedInTheHandlerWithTheContentDispositionName() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory("compat")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let destination = URL(fileURLWithPath: dir + "/saved")
        let cd = "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let box = Box<(String?, String?)>()
        Snippets.download(URL(string: "\(server.httpBase)/disposition?size=70000&value=\(cd)")!, to: destination) {
            box.set(($0.map { "\($0)" }, $1))
        }
        let (error, suggested) = try await box.wait()
        #expect(error == nil)
        #expect(suggested == "résumé.pdf")
        #expect(try Data(contentsOf: destination) == expectedBody(70_000))
    }

    @Test func uploadWithCompletionHandler() async throws {
        let server = try await TestServer.get()
        let box = Box<Int?>()
        Snippets.upload(URL(string: "\(server.httpBase)/echo")!, Data(repeating: 7, count: 1000)) { box.set($0) }
        #expect(try await box.wait() == 200)
    }

    @Test func bytesAsLines() async throws {
        let server = try await TestServer.get()
        let lines = try await Snippets.lines(URL(string: "\(server.httpBase)/gzip?fixture=1")!)
        #expect(lines.count == 40)
        #expect(lines.first == "line 000: the quick brown fox jumps over the lazy dog")
    }

    @Test func failedDownloadCarriesResumeDataUnderApplesKey() async throws {
        let server = try await TestServer.get()
        let name = "compat-\(UUID().uuidString.prefix(6)).bin"
        server.setFile(name, size: 350_000, seed: 2)
        let session = URLSession(transferConfiguration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        // Every response is reset by the server after 100,000 body bytes: three failures,
        // each with resume data, then the last 50,000 bytes arrive.
        let failing = URL(string: "\(server.httpBase)/files/\(name)?resetAfter=100000")!
        let (file, response, attempts) = try await Snippets.downloadRetrying(failing, session: session, attempts: 6)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(attempts == 4)
        #expect(try Data(contentsOf: file) == expectedBody(350_000, seed: 2))
        #expect((response as? HTTPURLResponse)?.statusCode == 206)
    }

    @Test func errorsAreURLErrorsWithApplesCodesAndKeys() async throws {
        let server = try await TestServer.get()
        let session = URLSession(transferConfiguration: ephemeralConfig { $0.timeoutIntervalForResource = 0.5 })
        defer { session.invalidateAndCancel() }
        let gate = UUID().uuidString
        let target = URL(string: "\(server.httpBase)/bytes/10?headGate=\(gate)")!
        do {
            _ = try await session.data(from: target)
            Issue.record("a response that never comes must time out")
        } catch let error as URLError {
            #expect(error.code == .timedOut)
            #expect(error.errorCode == NSURLErrorTimedOut)
            #expect((error.userInfo[NSURLErrorFailingURLErrorKey] as? URL) == target)
            #expect(error.userInfo["NSErrorFailingURLStringKey"] as? String == target.absoluteString)
        }
        server.openGate(gate)
    }

    @Test func responsesAreHTTPURLResponses() async throws {
        let server = try await TestServer.get()
        let session = URLSession(transferConfiguration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: URL(string: "\(server.httpsBase)/gzip?fixture=1")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.mimeType == "text/plain")
        #expect(http.textEncodingName == "utf-8")
        #expect(http.expectedContentLength == -1, "decoded: the wire length says nothing")
        #expect(http.value(forHTTPHeaderField: "content-encoding") == "gzip")
        #expect(http.suggestedFilename == "gzip")
        #expect(String(decoding: data, as: UTF8.self) == LoopbackServer.gzipFixtureText)
        let (_, plain) = try await session.data(from: URL(string: "\(server.httpBase)/bytes/1234")!)
        #expect(plain.expectedContentLength == 1234)
    }
}
