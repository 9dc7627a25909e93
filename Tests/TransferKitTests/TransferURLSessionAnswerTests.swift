import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TransferKit

/// Delegate answers TransferKit cannot carry out as Foundation would: the task fails clearly
/// instead of doing something the delegate did not ask for.
@Suite struct TransferURLSessionAnswerTests {
    /// Answers the redirect with a request without a URL.
    final class Answerer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: `events` and `error` are Locked.
        let events = Locked<[String]>([])
        let error = Locked<(any Error)?>(nil)

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            events.withLock { $0.append("redirect") }
            var withoutURL = request
            withoutURL.url = nil
            completionHandler(withoutURL)
        }
        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
            events.withLock { $0.append("response") }
            completionHandler(.allow)
        }
        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask) {
            events.withLock { $0.append("becameDownload") }
        }
        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            events.withLock { $0.append("data") }
        }
        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            self.error.withLock { $0 = error }
            events.withLock { $0.append("complete") }
        }
        var completed: Bool { events.withLock { $0.contains("complete") } }
    }

    /// A redirect request that cannot be converted (no URL) is not a silent refusal: the
    /// task fails with `.unsupportedURL`, not with the 302 as its response.
    @Test func unconvertibleRedirectRequestFailsTheTask() async throws {
        let server = try await TestServer.get()
        let answerer = Answerer()
        let session = TransferURLSession(configuration: .ephemeral, delegate: answerer, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: url("\(server.httpBase)/redirect/1")).resume()
        try await waitUntil("didCompleteWithError") { answerer.completed }
        #expect(answerer.events.withLock { $0 } == ["redirect", "complete"])
        #expect((answerer.error.withLock { $0 } as? URLError)?.code == .unsupportedURL)
    }
}
