import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a `TransferURLSession`'s engine session: each TransferKit callback handed to
/// the Foundation delegate the `TransferURLSession` was made with, with Foundation's task
/// classes and values (`URLSessionDataTask`, `HTTPURLResponse`, `URLRequest`, `URLError`,
/// `URLAuthenticationChallenge`). Tasks of `bytes(for:)` go to the stream router instead.
/// Runs on the engine session's delegate queue: the `OperationQueue`'s underlying queue.
final class FoundationDelegateBridge: TransferDataDelegate, TransferDownloadDelegate, TransferObserver, @unchecked Sendable {
    // @unchecked: `owner` is set once, before any task exists; the router is thread-safe.
    weak var owner: TransferURLSession?
    let router = StreamRouter()

    private var delegate: (any URLSessionDelegate)? { owner?.delegate }

    /// The delegate asked for one callback: the task's own (Foundation's `task.delegate`, set
    /// before resume) when it adopts the protocol declaring that callback, else the session's
    /// when it does. Apple falls back per method this way, so a task delegate that only adopts
    /// `URLSessionTaskDelegate` leaves data and download callbacks (the downloaded file) to the
    /// session's delegate.
    private func delegate<D>(of t: URLSessionTask, _: D.Type) -> D? {
        (t.delegate as? D) ?? (delegate as? D)
    }

    private func face(_ task: TransferTask) -> URLSessionTask? { owner?.face(of: task) }

    // MARK: session

    func session(_ session: TransferSession, didBecomeInvalidWithError error: TransferError?) {
        owner?.engineDidInvalidate()
    }

    func session(_ session: TransferSession, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        guard let owner, let delegate else { return completionHandler(.performDefaultHandling, nil) }
        let space = challenge.protectionSpace
        delegate.urlSession(owner, didReceive: challenge.urlAuthenticationChallenge) { d, c in
            if space.authenticationMethod == .serverTrust {
                return completionHandler(Self.trustAnswer(d, c, space), nil)
            }
            completionHandler(AuthChallengeDisposition(d), TransferCredential(c))
        }
    }

    /// The engine trusts a server on `.useCredential` alone, so the credential is checked here:
    /// only a `TransferServerTrustCredential` for this server trusts it. A user/password
    /// credential, or none, is not a decision to trust a certificate that failed
    /// verification; Apple rejects it, and so the task fails as untrusted.
    static func trustAnswer(_ d: URLSession.AuthChallengeDisposition, _ c: URLCredential?,
                            _ space: ProtectionSpace) -> AuthChallengeDisposition {
        guard d == .useCredential else { return AuthChallengeDisposition(d) }
        guard let trust = c as? TransferServerTrustCredential, trust.answers(space) else { return .performDefaultHandling }
        return .useCredential
    }

    // MARK: task

    func session(_ session: TransferSession, task: TransferTask, willPerformHTTPRedirection response: TransferResponse,
                 newRequest: TransferRequest, completionHandler: @escaping @Sendable (TransferRequest?) -> Void) {
        guard let owner, let t = face(task), let d = delegate(of: t, (any URLSessionTaskDelegate).self) else { return completionHandler(newRequest) }
        d.urlSession(owner, task: t, willPerformHTTPRedirection: response.httpURLResponse, newRequest: newRequest.urlRequest) { r in
            // nil refuses the redirect. A request that cannot be converted (it has no URL) is
            // not taken as a refusal, which would quietly make the redirect the response: it is
            // followed as an unsupported URL, so the task fails with `.unsupportedURL`.
            completionHandler(r.map(TransferURLSession.requestOrInvalid))
        }
    }

    func session(_ session: TransferSession, task: TransferTask, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        guard let owner, let t = face(task), let d = delegate(of: t, (any URLSessionTaskDelegate).self) else { return completionHandler(.performDefaultHandling, nil) }
        d.urlSession(owner, task: t, didReceive: challenge.urlAuthenticationChallenge) { disposition, credential in
            completionHandler(AuthChallengeDisposition(disposition), TransferCredential(credential))
        }
    }

    func session(_ session: TransferSession, task: TransferTask, didSendBodyData bytesSent: Int64,
                 totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        guard let owner, let t = face(task), let d = delegate(of: t, (any URLSessionTaskDelegate).self) else { return }
        d.urlSession(owner, task: t, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                     totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    func session(_ session: TransferSession, task: TransferTask,
                 needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        guard let owner, let t = face(task), let d = delegate(of: t, (any URLSessionTaskDelegate).self) else { return completionHandler(nil) }
        d.urlSession(owner, task: t, needNewBodyStream: completionHandler)
    }

    func session(_ session: TransferSession, task: TransferTask, didFinishCollecting metrics: TaskMetrics) {
        guard let owner, let t = face(task), let d = delegate(of: t, (any URLSessionTaskDelegate).self) else { return }
        d.urlSession(owner, task: t, didFinishCollecting: TransferURLSessionTaskMetrics(metrics))
    }

    func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
        if router.complete(task, error: error) { return }
        guard let owner, let t = face(task), let d = delegate(of: t, (any URLSessionTaskDelegate).self) else { return }
        d.urlSession(owner, task: t, didCompleteWithError: error?.urlError)
    }

    // MARK: data

    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        if router.receive(response, for: dataTask) { return completionHandler(.allow) }
        guard let owner, let t = face(dataTask) as? URLSessionDataTask, let d = delegate(of: t, (any URLSessionDataDelegate).self) else {
            return completionHandler(.allow)
        }
        d.urlSession(owner, dataTask: t, didReceive: response.urlResponse) { disposition in
            switch disposition {
            case .allow: completionHandler(.allow)
            case .becomeDownload: completionHandler(.becomeDownload)
            // `.becomeStream` (which corelibs marks unavailable, so no value of it can be made
            // on Linux) or any later disposition: TransferKit has no stream tasks, and a
            // download the delegate did not ask for would be wrong, so the task is cancelled.
            default: completionHandler(.cancel)
            }
        }
    }

    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {
        if router.receive(data, for: dataTask) { return }
        guard let owner, let t = face(dataTask) as? URLSessionDataTask, let d = delegate(of: t, (any URLSessionDataDelegate).self) else { return }
        d.urlSession(owner, dataTask: t, didReceive: data)
    }

    func session(_ session: TransferSession, dataTask: TransferDataTask, didBecome downloadTask: TransferDownloadTask) {
        guard let owner, let t = face(dataTask) as? URLSessionDataTask, let d = delegate(of: t, (any URLSessionDataDelegate).self),
              let download = face(downloadTask) as? URLSessionDownloadTask else { return }
        d.urlSession(owner, dataTask: t, didBecome: download)
    }

    // MARK: download

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingTo location: URL) {
        guard let owner, let t = face(downloadTask) as? URLSessionDownloadTask,
              let d = delegate(of: t, (any URLSessionDownloadDelegate).self) else { return }
        d.urlSession(owner, downloadTask: t, didFinishDownloadingTo: location)
    }

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        guard let owner, let t = face(downloadTask) as? URLSessionDownloadTask,
              let d = delegate(of: t, (any URLSessionDownloadDelegate).self) else { return }
        d.urlSession(owner, downloadTask: t, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten,
                     totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didResumeAtOffset fileOffset: Int64,
                 expectedTotalBytes: Int64) {
        guard let owner, let t = face(downloadTask) as? URLSessionDownloadTask,
              let d = delegate(of: t, (any URLSessionDownloadDelegate).self) else { return }
        d.urlSession(owner, downloadTask: t, didResumeAtOffset: fileOffset, expectedTotalBytes: expectedTotalBytes)
    }

    // MARK: observer

    /// A task's Foundation task is let go of once its outcome was delivered (completion
    /// handler or delegate): the engine session says so after every delivery.
    func transferSession(_ session: TransferSession, observes kind: TransferEvent.Kind) -> Bool {
        kind == .taskStateChanged(.completed)
    }

    func transferSession(_ session: TransferSession, didEmit event: TransferEvent) {
        if let id = event.taskIdentifier { owner?.forget(id) }
    }
}
