import Foundation

/// Session-level delegate. Every method has a default that does nothing, so a
/// delegate implements only what it needs. Callbacks arrive on the session's serial delegate
/// queue, in the seeds' order.
public protocol TransferSessionDelegate: AnyObject, Sendable {
    /// The last callback a session makes; the session lets go of its delegate after it.
    func session(_ session: TransferSession, didBecomeInvalidWithError error: TransferError?)
    /// A session-level challenge, as URLSession's `urlSession(_:didReceive:completionHandler:)`:
    /// a server whose chain did not verify (`challenge.serverTrust`, method `.serverTrust`).
    /// `.useCredential` trusts that server's leaf key for this session (pinned: another key is
    /// refused); the default, `.performDefaultHandling`, fails the task as curl would
    /// (`serverCertificateUntrusted`).
    func session(_ session: TransferSession, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void)
}

/// Task-level callbacks shared by every kind of task.
public protocol TransferTaskDelegate: TransferSessionDelegate {
    /// A redirect: answer with the request to follow (possibly modified) or nil to refuse, in
    /// which case the redirect response becomes the task's final response, with its body.
    func session(_ session: TransferSession, task: TransferTask,
                 willPerformHTTPRedirection response: TransferResponse, newRequest: TransferRequest,
                 completionHandler: @escaping @Sendable (TransferRequest?) -> Void)
    /// A 401, or a proxy's 407, offering Basic or Digest, as URLSession's
    /// `urlSession(_:task:didReceive:completionHandler:)`: answer with a disposition and, for
    /// `.useCredential`, the credential. The default is `.performDefaultHandling` (the
    /// credential store's credential, once). Check `previousFailureCount` before answering
    /// with the same credential again; after 5 refused credentials the 401 is the response.
    func session(_ session: TransferSession, task: TransferTask, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void)
    func session(_ session: TransferSession, task: TransferTask, didSendBodyData bytesSent: Int64,
                 totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    func session(_ session: TransferSession, task: TransferTask, didFinishCollecting metrics: TaskMetrics)
    func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?)
    /// A streamed upload (`uploadTask(withStreamedRequest:)`) needs its body: at the start and
    /// again when a 307/308 redirect resends it. Answer with a new, unopened stream, or nil
    /// (the default) to fail the task with `requestBodyStreamExhausted`.
    func session(_ session: TransferSession, task: TransferTask,
                 needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void)
    /// With `waitsForConnectivity`: the task could not reach its server and waits (retries)
    /// instead of failing. Called at most once per task, as Apple's.
    func session(_ session: TransferSession, taskIsWaitingForConnectivity task: TransferTask)
}

/// Callbacks of data and upload tasks made without a completion handler.
public protocol TransferDataDelegate: TransferTaskDelegate {
    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void)
    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data)
    func session(_ session: TransferSession, dataTask: TransferDataTask,
                 didBecome downloadTask: TransferDownloadTask)
    /// URLSession's `willCacheResponse`: a response about to be stored in the session's cache
    /// (before the task completes). Call the handler with it, a changed copy, or nil to store
    /// nothing. The default stores it as proposed.
    func session(_ session: TransferSession, dataTask: TransferDataTask, willCacheResponse proposed: CachedResponse,
                 completionHandler: @escaping @Sendable (CachedResponse?) -> Void)
}

extension TransferDataDelegate {
    public func session(_ session: TransferSession, dataTask: TransferDataTask, willCacheResponse proposed: CachedResponse,
                        completionHandler: @escaping @Sendable (CachedResponse?) -> Void) {
        completionHandler(proposed)
    }
}

/// Callbacks of download tasks made without a completion handler.
public protocol TransferDownloadDelegate: TransferTaskDelegate {
    /// The file at `location` is deleted when this method returns: move or read it here.
    func session(_ session: TransferSession, downloadTask: TransferDownloadTask,
                 didFinishDownloadingTo location: URL)
    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)
    func session(_ session: TransferSession, downloadTask: TransferDownloadTask,
                 didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64)
    /// TransferKit's addition (URLSession has no counterpart): a finished download whose body
    /// never left memory (at most 64 KiB) is offered here before any file is made. Return true
    /// when you handled `body` (stored it where it belongs: the CLI writes it once, straight
    /// under its final name); then `didFinishDownloadingTo` is not called. The default returns
    /// false: the body goes to a temporary file and `didFinishDownloadingTo`, as URLSession's.
    func session(_ session: TransferSession, downloadTask: TransferDownloadTask,
                 didFinishDownloadingBody body: Data) -> Bool
}

extension TransferSessionDelegate {
    public func session(_ session: TransferSession, didBecomeInvalidWithError error: TransferError?) {}
    public func session(_ session: TransferSession, didReceive challenge: AuthenticationChallenge,
                        completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        completionHandler(.performDefaultHandling, nil)
    }
}

extension TransferTaskDelegate {
    public func session(_ session: TransferSession, task: TransferTask,
                        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        completionHandler(nil)
    }
    public func session(_ session: TransferSession, task: TransferTask,
                        willPerformHTTPRedirection response: TransferResponse, newRequest: TransferRequest,
                        completionHandler: @escaping @Sendable (TransferRequest?) -> Void) {
        completionHandler(newRequest)
    }
    public func session(_ session: TransferSession, task: TransferTask, didReceive challenge: AuthenticationChallenge,
                        completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        completionHandler(.performDefaultHandling, nil)
    }
    public func session(_ session: TransferSession, task: TransferTask, didSendBodyData bytesSent: Int64,
                        totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
    public func session(_ session: TransferSession, task: TransferTask, didFinishCollecting metrics: TaskMetrics) {}
    public func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {}
    public func session(_ session: TransferSession, taskIsWaitingForConnectivity task: TransferTask) {}
}

extension TransferDataDelegate {
    public func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                        completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        completionHandler(.allow)
    }
    public func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {}
    public func session(_ session: TransferSession, dataTask: TransferDataTask,
                        didBecome downloadTask: TransferDownloadTask) {}
}

extension TransferDownloadDelegate {
    public func session(_ session: TransferSession, downloadTask: TransferDownloadTask,
                        didFinishDownloadingBody body: Data) -> Bool { false }
    public func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didWriteData bytesWritten: Int64,
                        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    public func session(_ session: TransferSession, downloadTask: TransferDownloadTask,
                        didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {}
}

/// Anything that wants to watch a session without being its delegate: the monitor, the CSV
/// recorder, tests. Called synchronously from the thread where the event happens
/// (the transfer thread or the delegate queue): keep it quick and never block.
public protocol TransferObserver: AnyObject, Sendable {
    func transferSession(_ session: TransferSession, didEmit event: TransferEvent)
    /// Whether events of `kind` are wanted (default: all). Asked before an event is made, so
    /// an event no observer wants costs no date and no detail text (DECISIONS 137). Asked
    /// again for every event, so an answer may change (the CLI's runner widens it when a sink
    /// is set); keep it quick.
    func transferSession(_ session: TransferSession, observes kind: TransferEvent.Kind) -> Bool
}

extension TransferObserver {
    public func transferSession(_ session: TransferSession, observes kind: TransferEvent.Kind) -> Bool { true }
}
