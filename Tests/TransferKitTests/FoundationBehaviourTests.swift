import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing
@testable import TransferKit

/// Where TransferKit's own API does what Foundation's URLSession does, each against the
/// loopback server. The same behaviours on Foundation's types are in URLSessionConformanceTests.
@Suite struct FoundationBehaviourTests {
    struct Outcome: Sendable {
        var data: Data?
        var response: TransferResponse?
        var error: TransferError?
    }

    /// One request with a completion handler, its outcome when it completes.
    func run(_ session: TransferSession, _ request: TransferRequest) async throws -> Outcome {
        let box = Box<Outcome>()
        session.dataTask(with: request) { d, r, e in box.set(Outcome(data: d, response: r, error: e)) }.resume()
        return try await box.wait()
    }

    /// What the loopback server received for the request whose path holds `token`.
    func received(_ server: LoopbackServer, _ token: String) throws -> RequestRecord {
        try #require(server.stats.requests.last { $0.path.contains(token) })
    }

    @Test func failedTaskHandsNilDataToItsCompletionHandler() async throws {
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        // Port 1 on loopback: nothing listens, the connection is refused.
        let outcome = try await run(session, TransferRequest(url: url("http://127.0.0.1:1/x")))
        #expect(outcome.error?.code == .cannotConnectToHost)
        #expect(outcome.data == nil, "Foundation hands a failed task's handler nil, not Data()")
    }

    @Test func succeededTaskWithAnEmptyBodyHandsEmptyData() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let outcome = try await run(session, TransferRequest(url: url("\(server.httpBase)/bytes/0")))
        #expect(outcome.error == nil)
        #expect(outcome.data == Data())
    }

    @Test func postContentTypeDefaultsAreFoundations() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        func contentType(body: Data?, type: String?) async throws -> String? {
            let token = UUID().uuidString
            var r = TransferRequest(url: url("\(server.httpBase)/echo?t=\(token)"), httpMethod: "POST", httpBody: body)
            if let type { r.headers.append(HTTPHeader("Content-Type", type)) }
            let outcome = try await run(session, r)
            #expect(outcome.response?.statusCode == 200)
            let record = try received(server, token)
            #expect(record.bodyBytesReceived == Int64(body?.count ?? 0))
            return record.header("Content-Type")
        }
        #expect(try await contentType(body: nil, type: nil) == nil, "a body-less POST sends no Content-Type")
        #expect(try await contentType(body: Data(), type: nil) == nil, "an empty body is no body")
        #expect(try await contentType(body: Data("a=1".utf8), type: nil) == "application/x-www-form-urlencoded")
        #expect(try await contentType(body: Data("{}".utf8), type: "application/json") == "application/json")
    }

    /// A HEAD request is sent as HEAD with no body and its response has none: Foundation ignores
    /// `httpBody` there (sent as an upload, the response body was read or the task timed out).
    @Test(arguments: ["http", "https"])
    func headWithABodyIsSentAsHead(scheme: String) async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let token = UUID().uuidString
        let base = scheme == "http" ? server.httpBase : server.httpsBase
        for body in [Data(), Data("ignored".utf8)] {
            let r = TransferRequest(url: url("\(base)/bytes/500?t=\(token)"), httpMethod: "HEAD", httpBody: body)
            let outcome = try await run(session, r)
            #expect(outcome.error == nil)
            #expect(outcome.response?.statusCode == 200)
            #expect(outcome.response?.expectedContentLength == 500)
            #expect(outcome.data == Data())
            let record = try received(server, token)
            #expect(record.method == "HEAD")
            #expect(record.bodyBytesReceived == 0)
        }
    }

    /// Foundation lists a task once resumed (running, or suspended after a resume), and neither
    /// a task never resumed nor one being cancelled.
    @Test func outstandingTasksAreResumedAndNotCancelled() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let gate = UUID().uuidString
        let neverResumed = session.dataTask(with: url("\(server.httpBase)/bytes/10"))
        let running = session.dataTask(with: url("\(server.httpBase)/bytes/10?headGate=\(gate)"))
        let paused = session.dataTask(with: url("\(server.httpBase)/bytes/10?headGate=\(gate)"))
        let cancelled = session.dataTask(with: url("\(server.httpBase)/bytes/10?headGate=\(gate)"))
        for t in [running, paused, cancelled] { t.resume() }
        try await server.waitForGate(gate, arrivals: 3)
        paused.suspend()
        cancelled.cancel()
        // Cancelled or already completed: either way not outstanding.
        #expect(session.outstandingTasks.map(\.taskIdentifier) == [running, paused].map(\.taskIdentifier))
        let listed = Box<[Int]>()
        session.getAllTasks { listed.set($0.map(\.taskIdentifier)) }
        #expect(try await listed.wait() == [running, paused].map(\.taskIdentifier))
        let kinds = Box<[Int]>()
        session.getTasksWithCompletionHandler { d, _, _ in kinds.set(d.map(\.taskIdentifier)) }
        #expect(try await kinds.wait() == [running, paused].map(\.taskIdentifier))
        #expect(session.allTasks.contains { $0 === neverResumed }, "allTasks still lists every unfinished task")
        server.openGate(gate)
    }

    @Test func twentyRedirectsAreFollowedAndTheTwentyFirstFails() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        #expect(TransferConfiguration.ephemeral.httpMaximumRedirects == 20)
        let twenty = try await run(session, TransferRequest(url: url("\(server.httpBase)/redirect/20")))
        #expect(twenty.error == nil)
        #expect(twenty.response?.statusCode == 200)
        let more = try await run(session, TransferRequest(url: url("\(server.httpBase)/redirect/21")))
        #expect(more.error?.code == .httpTooManyRedirects)
    }

    /// 305 and 306 are followed as 307: the method and body stay.
    @Test(arguments: [305, 306])
    func useProxyAndUnusedStatusesAreFollowedKeepingTheMethod(status: Int) async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let r = TransferRequest(url: url("\(server.httpBase)/redirect-method?status=\(status)"), httpMethod: "PUT",
                                httpBody: Data("kept".utf8))
        let outcome = try await run(session, r)
        #expect(outcome.error == nil)
        #expect(outcome.response?.url.path == "/echo")
        let echo = try #require(try JSONSerialization.jsonObject(with: outcome.data ?? Data()) as? [String: Any])
        #expect(echo["method"] as? String == "PUT")
        #expect(echo["bodyLength"] as? Int == 4)
    }

    @Test func invalidResumeDataFailsAsUnsupportedURL() async throws {
        let session = TransferURLSession(transferConfiguration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let box = Box<URLError>()
        session.downloadTask(withResumeData: Data("not resume data".utf8)) { _, _, error in
            box.set(error as? URLError ?? URLError(.unknown))
        }.resume()
        let error = try await box.wait()
        #expect(error.code == .unsupportedURL)
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? TransferError
        #expect(underlying?.code == .cannotDecodeResumeData, "TransferKit's own error keeps its code")
    }

    @Test func expectedBytesToReceiveAreZeroBeforeAResponse() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: url("\(server.httpBase)/bytes/1234"))
        #expect(task.countOfBytesExpectedToReceive == 0)
        task.resume()
        try await rec.waitForCompletion()
        #expect(task.countOfBytesExpectedToReceive == 1234)
    }

    /// A delegate data task (no completion handler) sends its request's body.
    @Test func dataTaskWithABodySendsIt() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        let body = Data("twelve bytes".utf8)
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/echo"), httpMethod: "POST", httpBody: body))
        task.resume()
        try await rec.waitForCompletion()
        #expect(rec.error == nil)
        let echo = try #require(try JSONSerialization.jsonObject(with: rec.data) as? [String: Any])
        #expect(echo["method"] as? String == "POST")
        #expect(echo["bodyLength"] as? Int == body.count)
        #expect(echo["bodySHA256"] as? String == sha256(body))
    }

    @Test func configurationConvertsFromFoundations() {
        let c = URLSessionConfiguration.default
        c.timeoutIntervalForRequest = 12
        c.timeoutIntervalForResource = 345
        c.httpMaximumConnectionsPerHost = 3
        c.httpAdditionalHeaders = ["X-A": "1"]
        c.httpShouldSetCookies = false
        let t = TransferConfiguration(c)
        #expect(t.timeoutIntervalForRequest == 12)
        #expect(t.timeoutIntervalForResource == 345)
        #expect(t.httpMaximumConnectionsPerHost == 3)
        #expect(t.httpAdditionalHeaders == [HTTPHeader("X-A", "1")])
        #expect(t.httpShouldSetCookies == false)
    }
}
