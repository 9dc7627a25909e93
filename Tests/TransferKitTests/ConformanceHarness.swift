import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TransferKit

/// The two back-ends every conformance test body runs against: Foundation's own `URLSession`
/// (swift-corelibs-foundation here) and `TransferURLSession`. A body sees only `URLSession`:
/// the back-end is the line that makes the session.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case foundation, transferKit

    var testDescription: String { rawValue }

    func session(_ configuration: URLSessionConfiguration = Backend.ephemeral(), delegate: (any URLSessionDelegate)? = nil,
                 queue: OperationQueue? = nil) -> URLSession {
        switch self {
        case .foundation: return URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        case .transferKit: return TransferURLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        }
    }

    /// `.ephemeral` with `ephemeralConfig()`'s 600 s idle time-out: bodies hold requests at
    /// server gates while they act (DECISIONS 167).
    static func ephemeral() -> URLSessionConfiguration {
        let c = URLSessionConfiguration.ephemeral
        c.timeoutIntervalForRequest = 600
        return c
    }

    /// Foundation on Linux, where a test checks corelibs' own (differing) behaviour and
    /// TransferKit against Apple's documented one.
    var isCorelibs: Bool { self == .foundation }
}

/// A completion handler's three values.
struct Outcome: @unchecked Sendable {
    // @unchecked: URLResponse and Error values, only read after the handler ran.
    var data: Data?
    var response: URLResponse?
    var error: (any Error)?

    var http: HTTPURLResponse? { response as? HTTPURLResponse }
    var urlError: URLError? { error as? URLError }
    var json: [String: Any]? { data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } }
}

/// Runs a data task with a completion handler — the same code path on both back-ends (the
/// async `data(for:)` of a value typed `URLSession` is Foundation's own; DECISIONS 170).
func load(_ session: URLSession, _ request: URLRequest) async throws -> Outcome {
    let box = Box<Outcome>()
    session.dataTask(with: request) { d, r, e in box.set(Outcome(data: d, response: r, error: e)) }.resume()
    return try await box.wait()
}

func load(_ session: URLSession, _ url: URL) async throws -> Outcome { try await load(session, URLRequest(url: url)) }

/// A Foundation delegate that records every callback, in order, and what they carried.
final class FoundationRecorder: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is behind `state`.
    struct State {
        var events: [String] = []
        var data = Data()
        var downloaded: Data?
        var metrics: URLSessionTaskMetrics?
        var error: (any Error)?
        var completed = false
        var invalidated = false
        var tasks: [URLSessionTask] = []
    }
    let state = Locked(State())
    /// What the redirect callback answers: follow (true) or take the redirect as the response.
    let followsRedirects: Bool
    let credential: URLCredential?

    /// What `needNewBodyStream` hands over, a new stream each time.
    let streamedBody: Data?

    init(followsRedirects: Bool = true, credential: URLCredential? = nil, streamedBody: Data? = nil) {
        self.followsRedirects = followsRedirects
        self.credential = credential
        self.streamedBody = streamedBody
    }

    /// Every callback, in order, each time it came.
    var events: [String] { state.withLock { $0.events } }
    /// `events` with consecutive repeats of the callbacks that come many times for one task
    /// (`data`, `sent`) shown once; any other callback that came twice still shows twice.
    var sequence: [String] {
        events.reduce(into: []) { r, e in if !(["data", "sent"].contains(e) && r.last == e) { r.append(e) } }
    }
    private func log(_ e: String, _ task: URLSessionTask? = nil) {
        state.withLock { s in
            s.events.append(e)
            if let task { s.tasks.append(task) }
        }
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        state.withLock { $0.events.append("invalid"); $0.invalidated = true }
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        log("redirect \(response.statusCode)", task)
        completionHandler(followsRedirects ? request : nil)
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        log("challenge \(challenge.protectionSpace.authenticationMethod) \(challenge.previousFailureCount)", task)
        if let credential, challenge.previousFailureCount == 0 { completionHandler(.useCredential, credential) } else {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
    func urlSession(_ session: URLSession, task: URLSessionTask,
                    needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        log("needNewBodyStream", task)
        completionHandler(streamedBody.map { InputStream(data: $0) })
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                    totalBytesExpectedToSend: Int64) {
        log("sent", task)
    }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        log("response \((response as? HTTPURLResponse)?.statusCode ?? 0)", dataTask)
        completionHandler(.allow)
    }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        log("data", dataTask)
        state.withLock { $0.data.append(data) }
    }
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let d = FileManager.default.contents(atPath: location.path)
        log("downloaded", downloadTask)
        state.withLock { $0.downloaded = d }
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        log("metrics", task)
        state.withLock { $0.metrics = metrics }
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        log("complete", task)
        state.withLock { $0.error = error; $0.completed = true }
    }

    func waitForCompletion() async throws {
        try await waitUntil("didCompleteWithError") { self.state.withLock { $0.completed } }
    }
}

/// A task delegate adopting only `URLSessionTaskDelegate`: no data or download callbacks.
final class TaskOnlyRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked: `events` is Locked.
    let events = Locked<[String]>([])
    var completed: Bool { events.withLock { $0.contains("complete") } }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        events.withLock { $0.append("complete") }
    }
}

/// A weak reference a `@Sendable` wait can read: whether an object was let go of.
final class WeakHolder: @unchecked Sendable {
    // @unchecked: written once, before it is read.
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

/// How a session delegate answers the server-trust challenge.
enum TrustAnswer: String, CaseIterable, Sendable {
    case passwordCredential, noCredential, trustCredential
}

/// A session delegate answering the server-trust challenge with `.useCredential` and the
/// credential its `TrustAnswer` names; every other challenge gets the default handling.
final class ServerTrustAnswerer: NSObject, URLSessionDelegate, @unchecked Sendable {
    // @unchecked: `asked` is Locked; `answer` is immutable.
    let answer: TrustAnswer
    let asked = Locked<[String]>([])
    init(_ answer: TrustAnswer) { self.answer = answer }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let method = challenge.protectionSpace.authenticationMethod
        asked.withLock { $0.append(method) }
        guard method == "NSURLAuthenticationMethodServerTrust" else { return completionHandler(.performDefaultHandling, nil) }
        switch answer {
        case .passwordCredential: completionHandler(.useCredential, URLCredential(user: "u", password: "p", persistence: .forSession))
        case .noCredential: completionHandler(.useCredential, nil)
        case .trustCredential: completionHandler(.useCredential, TransferServerTrustCredential(for: challenge))
        }
    }
}
