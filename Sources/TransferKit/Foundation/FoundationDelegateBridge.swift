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

    /// A task's own delegate (Foundation's `task.delegate`, set before resume) before the
    /// session's, as Foundation asks them.
    private func delegate(of t: URLSessionTask) -> (any URLSessionDelegate)? { t.delegate ?? delegate }

    private func face(_ task: TransferTask) -> URLSessionTask? { owner?.face(of: task) }

    // MARK: session

    func session(_ session: TransferSession, didBecomeInvalidWithError error: TransferError?) {
        owner?.engineDidInvalidate()
    }

    func session(_ session: TransferSession, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        guard let owner, let delegate else { return completionHandler(.performDefaultHandling, nil) }
        delegate.urlSession(owner, didReceive: challenge.urlAuthenticationChallenge) { d, c in
            completionHandler(AuthChallengeDisposition(d), TransferCredential(c))
        }
    }

    // MARK: task

    func session(_ session: TransferSession, task: TransferTask, willPerformHTTPRedirection response: TransferResponse,
                 newRequest: TransferRequest, completionHandler: @escaping @Sendable (TransferRequest?) -> Void) {
        guard let owner, let t = face(task), let d = delegate(of: t) as? any URLSessionTaskDelegate else { return completionHandler(newRequest) }
        d.urlSession(owner, task: t, willPerformHTTPRedirection: response.httpURLResponse, newRequest: newRequest.urlRequest) { r in
            completionHandler(r.flatMap { try? TransferRequest($0) })
        }
    }

    func session(_ session: TransferSession, task: TransferTask, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        guard let owner, let t = face(task), let d = delegate(of: t) as? any URLSessionTaskDelegate else { return completionHandler(.performDefaultHandling, nil) }
        d.urlSession(owner, task: t, didReceive: challenge.urlAuthenticationChallenge) { disposition, credential in
            completionHandler(AuthChallengeDisposition(disposition), TransferCredential(credential))
        }
    }

    func session(_ session: TransferSession, task: TransferTask, didSendBodyData bytesSent: Int64,
                 totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        guard let owner, let t = face(task), let d = delegate(of: t) as? any URLSessionTaskDelegate else { return }
        d.urlSession(owner, task: t, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                     totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    func session(_ session: TransferSession, task: TransferTask,
                 needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        guard let owner, let t = face(task), let d = delegate(of: t) as? any URLSessionTaskDelegate else { return completionHandler(nil) }
        d.urlSession(owner, task: t, needNewBodyStream: completionHandler)
    }

    /// Also where cookies reach Foundation's store: every task's metrics come here, completion
    /// handler or not, before its outcome is delivered.
    func session(_ session: TransferSession, task: TransferTask, didFinishCollecting metrics: TaskMetrics) {
        owner?.keepCookies(of: task, metrics)
        guard let owner, let t = face(task), let d = delegate(of: t) as? any URLSessionTaskDelegate else { return }
        d.urlSession(owner, task: t, didFinishCollecting: TransferURLSessionTaskMetrics(metrics))
    }

    func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
        if router.complete(task, error: error) { return }
        guard let owner, let t = face(task), let d = delegate(of: t) as? any URLSessionTaskDelegate else { return }
        d.urlSession(owner, task: t, didCompleteWithError: error?.urlError)
    }

    // MARK: data

    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        if router.receive(response, for: dataTask) { return completionHandler(.allow) }
        guard let owner, let t = face(dataTask) as? URLSessionDataTask, let d = delegate(of: t) as? any URLSessionDataDelegate else {
            return completionHandler(.allow)
        }
        d.urlSession(owner, dataTask: t, didReceive: response.urlResponse) { disposition in
            switch disposition {
            case .cancel: completionHandler(.cancel)
            case .allow: completionHandler(.allow)
            default: completionHandler(.becomeDownload)
            }
        }
    }

    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {
        if router.receive(data, for: dataTask) { return }
        guard let owner, let t = face(dataTask) as? URLSessionDataTask, let d = delegate(of: t) as? any URLSessionDataDelegate else { return }
        d.urlSession(owner, dataTask: t, didReceive: data)
    }

    func session(_ session: TransferSession, dataTask: TransferDataTask, didBecome downloadTask: TransferDownloadTask) {
        guard let owner, let t = face(dataTask) as? URLSessionDataTask, let d = delegate(of: t) as? any URLSessionDataDelegate,
              let download = face(downloadTask) as? URLSessionDownloadTask else { return }
        d.urlSession(owner, dataTask: t, didBecome: download)
    }

    // MARK: download

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingTo location: URL) {
        guard let owner, let t = face(downloadTask) as? URLSessionDownloadTask,
              let d = delegate(of: t) as? any URLSessionDownloadDelegate else { return }
        d.urlSession(owner, downloadTask: t, didFinishDownloadingTo: location)
    }

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        guard let owner, let t = face(downloadTask) as? URLSessionDownloadTask,
              let d = delegate(of: t) as? any URLSessionDownloadDelegate else { return }
        d.urlSession(owner, downloadTask: t, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten,
                     totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didResumeAtOffset fileOffset: Int64,
                 expectedTotalBytes: Int64) {
        guard let owner, let t = face(downloadTask) as? URLSessionDownloadTask,
              let d = delegate(of: t) as? any URLSessionDownloadDelegate else { return }
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
