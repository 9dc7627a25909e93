import Foundation

extension TransferSession {
    /// A new download task, already running, that takes over a data task's transfer.
    func adoptAsDownload(_ dataTask: TransferDataTask) -> TransferDownloadTask {
        let request = dataTask.currentRequest
        let download = register {
            TransferDownloadTask(session: self, identifier: $0, kind: .download, request: request)
        }
        let (response, metrics, received, expected) = dataTask.core.withLock {
            ($0.response, $0.metrics, $0.countOfBytesReceived, $0.countOfBytesExpectedToReceive)
        }
        download.core.withLock { c in
            c.response = response
            c.metrics = metrics
            c.countOfBytesReceived = received
            c.countOfBytesExpectedToReceive = expected
        }
        download.apply(.adoptRunningTransfer)
        return download
    }

    /// On the delegate queue, after *didBecomeDownloadTask*: the data task ends silently.
    func retireConverted(_ dataTask: TransferDataTask) {
        dataTask.apply(.handedOver)
        taskDidFinish(dataTask)
    }
}
