import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Foundation's `URLSession`, run by TransferKit: a subclass whose tasks are subclasses of
/// Foundation's task classes, handed to Foundation's own delegate protocols
/// (`URLSessionDataDelegate`, `URLSessionDownloadDelegate`, `URLSessionTaskDelegate`), so
/// code typed against URLSession changes only the line that makes the session. What it costs
/// (an unused corelibs session underneath, metrics behind a cast, the async methods only when
/// the static type is this class) is DECISIONS 170; what differs is docs/urlsession-parity.md.
public final class TransferURLSession: URLSession, @unchecked Sendable {
    // @unchecked: immutable but for `faces`, which is behind its lock.
    /// The session doing the work: its delegate events, snapshots and observers.
    public let session: TransferSession
    let bridge: FoundationDelegateBridge
    /// The Foundation task handed out for each unfinished TransferKit task, by identifier.
    private let faces = Locked<[Int: URLSessionTask]>([:])
    /// The configuration's `httpCookieStorage` when `httpShouldSetCookies`: cookies are sent
    /// from it and every Set-Cookie the tasks get is stored in it.
    private let foundationCookies: HTTPCookieStorage?

    /// An ephemeral session with the default configuration, as `URLSession.shared`.
    override public class var shared: TransferURLSession { sharedSession }
    private static let sharedSession = TransferURLSession(transferConfiguration: .ephemeral)

    /// Takes the settings TransferKit has from a `URLSessionConfiguration`: both timeouts,
    /// connections per host, additional headers, cookies on or off (kept in the configuration's
    /// `httpCookieStorage`), and the identifier of a background configuration. The delegate
    /// adopts Foundation's protocols; callbacks run one at a time on `delegateQueue` (a serial
    /// queue of its own when nil).
    override public convenience init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
                                     delegateQueue queue: OperationQueue?) {
        self.init(foundation: configuration, transfer: TransferURLSession.transferConfiguration(configuration),
                  delegate: delegate, queue: queue)
    }

    override public convenience init(configuration: URLSessionConfiguration) {
        self.init(configuration: configuration, delegate: nil, delegateQueue: nil)
    }

    /// Every TransferKit setting; `configuration` then reads as an ephemeral one's.
    public convenience init(transferConfiguration: TransferConfiguration, delegate: (any URLSessionDelegate)? = nil,
                            delegateQueue queue: OperationQueue? = nil) {
        let foundation = URLSessionConfiguration.ephemeral
        foundation.httpShouldSetCookies = false  // TransferKit's own store keeps them
        self.init(foundation: foundation, transfer: transferConfiguration, delegate: delegate, queue: queue)
    }

    private init(foundation: URLSessionConfiguration, transfer: TransferConfiguration,
                 delegate: (any URLSessionDelegate)?, queue: OperationQueue?) {
        let q = queue ?? OperationQueue()
        if queue == nil { q.maxConcurrentOperationCount = 1 }
        bridge = FoundationDelegateBridge()
        session = TransferSession(configuration: transfer, delegate: bridge, operationQueue: q)
        foundationCookies = foundation.httpShouldSetCookies ? foundation.httpCookieStorage : nil
        super.init(configuration: foundation, delegate: delegate, delegateQueue: q)
        bridge.owner = self
        session.addObserver(bridge)
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
        let r = try transferRequest(request)
        if let body = r.httpBody { return try await foundation { () async throws(TransferError) in try await session.upload(for: r, from: body) } }
        return try await foundation { () async throws(TransferError) in try await session.data(for: r) }
    }

    public func data(from url: URL) async throws -> (Data, URLResponse) { try await data(for: URLRequest(url: url)) }

    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        let r = try transferRequest(request)
        return try await foundation { () async throws(TransferError) in try await session.upload(for: r, from: bodyData) }
    }

    public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse) {
        let r = try transferRequest(request)
        return try await foundation { () async throws(TransferError) in try await session.upload(for: r, fromFile: fileURL) }
    }

    /// The file belongs to the caller, as Apple's: move it or remove it.
    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        let r = try transferRequest(request)
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
        let r = try transferRequest(request)
        let task = r.httpBody.map { session.uploadTask(with: r, from: $0) } ?? session.dataTask(with: r)
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let head = bridge.router.register(task, continuation)
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

    // MARK: tasks, as URLSession's

    override public func dataTask(with request: URLRequest) -> URLSessionDataTask {
        let r = prepare(request)
        return hold(TransferURLSessionDataTask(session.dataTask(with: r)))
    }

    override public func dataTask(with url: URL) -> URLSessionDataTask { dataTask(with: URLRequest(url: url)) }

    /// The request's `httpBody` is sent, as Foundation's data tasks send it.
    override public func dataTask(with request: URLRequest,
                                  completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDataTask {
        let r = prepare(request)
        return hold(TransferURLSessionDataTask(session.dataTask(with: r, completionHandler: Self.data(completionHandler))))
    }

    override public func dataTask(with url: URL,
                                  completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    override public func uploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
        hold(TransferURLSessionUploadTask(session.uploadTask(with: prepare(request), from: bodyData)))
    }

    override public func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        hold(TransferURLSessionUploadTask(session.uploadTask(with: prepare(request), fromFile: fileURL)))
    }

    /// The body comes from the delegate's `urlSession(_:task:needNewBodyStream:)`.
    override public func uploadTask(withStreamedRequest request: URLRequest) -> URLSessionUploadTask {
        hold(TransferURLSessionUploadTask(session.uploadTask(withStreamedRequest: prepare(request))))
    }

    override public func uploadTask(with request: URLRequest, from bodyData: Data?,
                                    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionUploadTask {
        let task = session.uploadTask(with: prepare(request), from: bodyData ?? Data(), completionHandler: Self.data(completionHandler))
        return hold(TransferURLSessionUploadTask(task))
    }

    override public func uploadTask(with request: URLRequest, fromFile fileURL: URL,
                                    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionUploadTask {
        let task = session.uploadTask(with: prepare(request), fromFile: fileURL, completionHandler: Self.data(completionHandler))
        return hold(TransferURLSessionUploadTask(task))
    }

    override public func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        hold(TransferURLSessionDownloadTask(session.downloadTask(with: prepare(request))))
    }

    override public func downloadTask(with url: URL) -> URLSessionDownloadTask { downloadTask(with: URLRequest(url: url)) }

    /// Resume data is TransferKit's (docs/resume-data.md); data it cannot read fails the task
    /// with `.unsupportedURL`, as Foundation's.
    override public func downloadTask(withResumeData resumeData: Data) -> URLSessionDownloadTask {
        hold(TransferURLSessionDownloadTask(session.downloadTask(withResumeData: resumeData)))
    }

    /// The file is deleted when the handler returns, as Apple's: move it inside the handler.
    override public func downloadTask(with request: URLRequest,
                                      completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDownloadTask {
        hold(TransferURLSessionDownloadTask(session.downloadTask(with: prepare(request), completionHandler: Self.file(completionHandler))))
    }

    override public func downloadTask(with url: URL,
                                      completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    override public func downloadTask(withResumeData resumeData: Data,
                                      completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDownloadTask {
        hold(TransferURLSessionDownloadTask(session.downloadTask(withResumeData: resumeData, completionHandler: Self.file(completionHandler))))
    }

    private static func data(_ handler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> @Sendable (Data?, TransferResponse?, TransferError?) -> Void {
        { data, response, error in handler(data, response?.urlResponse, error?.urlError) }
    }

    private static func file(_ handler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void)
        -> @Sendable (URL?, TransferResponse?, TransferError?) -> Void {
        { file, response, error in handler(file, response?.urlResponse, error?.urlError) }
    }

    /// A request without a URL cannot be refused here (Apple's methods do not throw): it
    /// becomes one that fails with `.unsupportedURL` when resumed.
    private func prepare(_ request: URLRequest) -> TransferRequest {
        offerCookies(for: request)
        return Self.requestOrInvalid(request)
    }

    /// The async methods' conversion, which throws for a request without a URL.
    private func transferRequest(_ request: URLRequest) throws -> TransferRequest {
        offerCookies(for: request)
        return try Self.request(request)
    }

    /// The configuration's cookies, offered to the engine's store before a request is made.
    private func offerCookies(for request: URLRequest) {
        guard let foundationCookies, request.httpShouldHandleCookies else { return }
        for c in foundationCookies.cookies ?? [] { session.cookieStorage.setCookie(TransferCookie(c)) }
    }

    static func requestOrInvalid(_ r: URLRequest) -> TransferRequest {
        (try? TransferRequest(r)) ?? TransferRequest(url: URL(string: "about:blank")!)
    }

    // MARK: the Foundation task of each TransferKit task

    private func hold<T: URLSessionTask>(_ face: T) -> T {
        let id = face.taskIdentifier
        faces.withLock { $0[id] = face }
        return face
    }

    /// The task handed out for `task`; one made now for a task this session did not hand out
    /// (those of the async methods).
    func face(of task: TransferTask) -> URLSessionTask {
        if let face = faces.withLock({ $0[task.taskIdentifier] }) { return face }
        if let download = task as? TransferDownloadTask { return TransferURLSessionDownloadTask(download) }
        if task is TransferUploadTask { return TransferURLSessionUploadTask(task) }
        return TransferURLSessionDataTask(task)
    }

    /// Lets go of a delivered task's Foundation task.
    func forget(_ taskIdentifier: Int) { _ = faces.withLock { $0.removeValue(forKey: taskIdentifier) } }

    /// Every Set-Cookie of the task's hops, into the configuration's `httpCookieStorage`
    /// (its accept policy applies).
    func keepCookies(of task: TransferTask, _ metrics: TaskMetrics) {
        guard let foundationCookies, task.originalRequest.httpShouldHandleCookies else { return }
        for hop in metrics.transactionMetrics {
            guard let url = URL(string: hop.url) else { continue }
            let cookies = hop.responseHeaders.filter { $0.name.caseInsensitiveCompare("Set-Cookie") == .orderedSame }
                .flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0.value], for: url) }
            if !cookies.isEmpty {
                foundationCookies.setCookies(cookies, for: url, mainDocumentURL: task.originalRequest.mainDocumentURL ?? url)
            }
        }
    }

    // MARK: lifetime and task lists

    /// As Apple's, neither has an effect on `shared`.
    override public func finishTasksAndInvalidate() {
        guard self !== Self.sharedSession else { return }
        session.finishTasksAndInvalidate()
    }

    override public func invalidateAndCancel() {
        guard self !== Self.sharedSession else { return }
        session.invalidateAndCancel()
    }

    /// The engine session delivered its last task: corelibs' own invalidation (it has no tasks)
    /// calls the delegate's `didBecomeInvalidWithError` on the delegate queue and lets go of
    /// the delegate, which breaks the usual delegate → session → delegate cycle as Apple's does.
    func engineDidInvalidate() { super.finishTasksAndInvalidate() }

    /// The tasks resumed and neither completed nor being cancelled, as Foundation lists them.
    override public func getAllTasks(completionHandler: @escaping @Sendable ([URLSessionTask]) -> Void) {
        session.getAllTasks { [self] tasks in completionHandler(tasks.map { face(of: $0) }) }
    }

    override public func getTasksWithCompletionHandler(
        _ completionHandler: @escaping @Sendable ([URLSessionDataTask], [URLSessionUploadTask], [URLSessionDownloadTask]) -> Void
    ) {
        session.getAllTasks { [self] tasks in
            let all = tasks.map { face(of: $0) }
            completionHandler(all.compactMap { $0 as? TransferURLSessionDataTask }, all.compactMap { $0 as? URLSessionUploadTask },
                              all.compactMap { $0 as? URLSessionDownloadTask })
        }
    }
}
