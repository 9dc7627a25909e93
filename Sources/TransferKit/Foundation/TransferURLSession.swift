import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession's face on a `TransferSession`: Apple's method names with Foundation's
/// types in and out — `URLRequest`, `URLResponse` (an `HTTPURLResponse`), `URLError` — so code
/// written against URLSession compiles with `URLSession` replaced by `TransferURLSession`.
/// Delegates are TransferKit's own protocols on `session` (Apple's delegate protocols take a
/// `URLSession`, which no other type can be); see docs/urlsession-parity.md.
public final class TransferURLSession: Sendable {
    /// The session doing the work: its delegate events, snapshots and observers.
    public let session: TransferSession
    private let router: StreamRouter

    /// An ephemeral session with the default configuration, as `URLSession.shared`.
    public static let shared = TransferURLSession(transferConfiguration: .ephemeral)

    /// Takes the settings TransferKit has from a `URLSessionConfiguration`: both timeouts,
    /// connections per host, additional headers, cookies on or off, and the
    /// identifier of a background configuration. State stays in memory (an ephemeral
    /// session) unless the configuration is a background one: use
    /// `init(transferConfiguration:)` with `.default` for cookies kept on disk.
    public convenience init(configuration: URLSessionConfiguration) {
        self.init(transferConfiguration: Self.transferConfiguration(configuration))
    }

    public init(transferConfiguration: TransferConfiguration) {
        router = StreamRouter()
        session = TransferSession(configuration: transferConfiguration, delegate: router)
    }

    static func transferConfiguration(_ c: URLSessionConfiguration) -> TransferConfiguration {
        var t: TransferConfiguration = c.identifier.map { .background(withIdentifier: $0) } ?? .ephemeral
        t.timeoutIntervalForRequest = c.timeoutIntervalForRequest
        t.timeoutIntervalForResource = c.timeoutIntervalForResource
        t.httpMaximumConnectionsPerHost = c.httpMaximumConnectionsPerHost
        t.httpShouldSetCookies = c.httpShouldSetCookies
        switch c.httpCookieAcceptPolicy {
        case .always: t.httpCookieAcceptPolicy = .always
        case .never: t.httpCookieAcceptPolicy = .never
        default: t.httpCookieAcceptPolicy = .onlyFromMainDocumentDomain
        }
        t.requestCachePolicy = TransferRequest.cachePolicy(c.requestCachePolicy) ?? .useProtocolCachePolicy
        t.httpAdditionalHeaders = (c.httpAdditionalHeaders ?? [:])
            .compactMap { k, v in (k as? String).map { HTTPHeader($0, "\(v)") } }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
        return t
    }

    static func request(_ r: URLRequest) throws -> TransferRequest {
        do { return try TransferRequest(r) } catch { throw error.urlError }
    }

    // MARK: async, as URLSession's

    /// TransferKit's answer in Foundation's types: the response as `HTTPURLResponse`, a
    /// failure as `URLError`.
    private func foundation<T>(_ call: () async throws(TransferError) -> (T, TransferResponse)) async throws -> (T, URLResponse) {
        do {
            let (value, response) = try await call()
            return (value, response.urlResponse)
        } catch { throw error.urlError }
    }

    /// A request with a body (`httpBody` or `httpBodyStream`) is sent as an upload of it.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let r = try Self.request(request)
        if let body = r.httpBody { return try await foundation { () async throws(TransferError) in try await session.upload(for: r, from: body) } }
        return try await foundation { () async throws(TransferError) in try await session.data(for: r) }
    }

    public func data(from url: URL) async throws -> (Data, URLResponse) { try await data(for: URLRequest(url: url)) }

    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        let r = try Self.request(request)
        return try await foundation { () async throws(TransferError) in try await session.upload(for: r, from: bodyData) }
    }

    public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse) {
        let r = try Self.request(request)
        return try await foundation { () async throws(TransferError) in try await session.upload(for: r, fromFile: fileURL) }
    }

    /// The file belongs to the caller, as Apple's: move it or remove it.
    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        let r = try Self.request(request)
        return try await foundation { () async throws(TransferError) in try await session.download(for: r) }
    }

    public func download(from url: URL) async throws -> (URL, URLResponse) { try await download(for: URLRequest(url: url)) }

    /// Continues from the `downloadTaskResumeData` of a failed download's `URLError`.
    public func download(resumeFrom resumeData: Data) async throws -> (URL, URLResponse) {
        try await foundation { () async throws(TransferError) in try await session.download(resumeFrom: resumeData) }
    }

    /// The response head as soon as it arrives, and the body as an async sequence of bytes
    /// (`.lines` for text). Cancelling the Swift task, or dropping the sequence's consumer
    /// and cancelling `bytes.task`, cancels the transfer.
    public func bytes(for request: URLRequest) async throws -> (TransferAsyncBytes, URLResponse) {
        let r = try Self.request(request)
        let task = r.httpBody.map { session.uploadTask(with: r, from: $0) } ?? session.dataTask(with: r)
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let head = router.register(task, continuation)
        continuation.onTermination = { @Sendable termination in
            if case .cancelled = termination { task.cancel() }
        }
        task.resume()
        let response = try await withTaskCancellationHandler {
            try await head.value()
        } onCancel: {
            task.cancel()
        }
        return (TransferAsyncBytes(stream: stream, task: task), response.urlResponse)
    }

    public func bytes(from url: URL) async throws -> (TransferAsyncBytes, URLResponse) { try await bytes(for: URLRequest(url: url)) }

    // MARK: completion handlers, as URLSession's

    /// A request with a body is sent as an upload of it (a `TransferUploadTask`, a data task).
    public func dataTask(with request: URLRequest,
                         completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> TransferDataTask {
        let r = Self.requestOrInvalid(request)
        let handler: @Sendable (Data?, TransferResponse?, TransferError?) -> Void = { data, response, error in
            completionHandler(data, response?.urlResponse, error?.urlError)
        }
        if let body = r.httpBody { return session.uploadTask(with: r, from: body, completionHandler: handler) }
        return session.dataTask(with: r, completionHandler: handler)
    }

    public func dataTask(with url: URL,
                         completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> TransferDataTask {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    public func uploadTask(with request: URLRequest, from bodyData: Data?,
                           completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> TransferUploadTask {
        session.uploadTask(with: Self.requestOrInvalid(request), from: bodyData ?? Data()) { data, response, error in
            completionHandler(data, response?.urlResponse, error?.urlError)
        }
    }

    public func uploadTask(with request: URLRequest, fromFile fileURL: URL,
                           completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> TransferUploadTask {
        session.uploadTask(with: Self.requestOrInvalid(request), fromFile: fileURL) { data, response, error in
            completionHandler(data, response?.urlResponse, error?.urlError)
        }
    }

    /// The file is deleted when the handler returns, as Apple's: move it inside the handler.
    public func downloadTask(with request: URLRequest,
                             completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void) -> TransferDownloadTask {
        session.downloadTask(with: Self.requestOrInvalid(request)) { file, response, error in
            completionHandler(file, response?.urlResponse, error?.urlError)
        }
    }

    public func downloadTask(with url: URL,
                             completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void) -> TransferDownloadTask {
        downloadTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    /// Continues a download from resume data; the file is deleted when the handler returns.
    public func downloadTask(withResumeData resumeData: Data,
                             completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void) -> TransferDownloadTask {
        session.downloadTask(withResumeData: resumeData) { file, response, error in
            completionHandler(file, response?.urlResponse, error?.urlError)
        }
    }

    /// A request without a URL cannot be refused here (Apple's methods do not throw): it
    /// becomes one that fails with `.unsupportedURL` when resumed.
    static func requestOrInvalid(_ r: URLRequest) -> TransferRequest {
        (try? TransferRequest(r)) ?? TransferRequest(url: URL(string: "about:blank")!)
    }

    // MARK: lifetime

    public func finishTasksAndInvalidate() { session.finishTasksAndInvalidate() }
    public func invalidateAndCancel() { session.invalidateAndCancel() }
    public func getAllTasks(completionHandler: @escaping @Sendable ([TransferTask]) -> Void) {
        session.getAllTasks(completionHandler: completionHandler)
    }
}
