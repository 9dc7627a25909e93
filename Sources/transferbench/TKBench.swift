import Foundation
import Synchronization
import TransferKit

/// TransferKit clients, through the public API only.
enum TKBench {
    static func configuration() -> TransferConfiguration {
        var c = TransferConfiguration.ephemeral
        c.httpMaximumConnectionsPerHost = 6
        return c
    }

    /// Data task whose delegate discards every chunk (the in-memory discarding path).
    final class DiscardDelegate: TransferDataDelegate, @unchecked Sendable {
        // @unchecked: the fields are only touched on the session's serial delegate queue,
        // and read after `done` was signalled.
        var bytes: Int64 = 0
        var status = 0
        var error: TransferError?
        let done = DispatchSemaphore(value: 0)

        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                     completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
            status = response.statusCode
            completionHandler(.allow)
        }
        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {
            bytes += Int64(data.count)
        }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            self.error = error
            done.signal()
        }
    }

    static func bulk(_ url: URL) -> Outcome {
        let d = DiscardDelegate()
        let session = TransferSession(configuration: configuration(), delegate: d)
        session.dataTask(with: url).resume()
        d.done.wait()
        session.finishTasksAndInvalidate()
        let good = d.error == nil && d.status == 200
        return Outcome(bytes: d.bytes, ok: good ? 1 : 0, failed: good ? 0 : 1,
                       note: d.error.map { "\($0)" } ?? (d.status == 200 ? "" : "status \(d.status)"))
    }

    /// Download task; the file handed over at didFinishDownloadingTo is moved to `target`.
    final class DownloadDelegate: TransferDownloadDelegate, @unchecked Sendable {
        // @unchecked: touched only on the delegate queue, read after `done`.
        let target: URL
        var moved = false
        var moveError = ""
        var error: TransferError?
        let done = DispatchSemaphore(value: 0)
        init(target: URL) { self.target = target }

        func session(_ session: TransferSession, downloadTask: TransferDownloadTask,
                     didFinishDownloadingTo location: URL) {
            (moved, moveError) = placeDownload(location, at: target)
        }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            self.error = error
            done.signal()
        }
    }

    static func disk(_ url: URL, to target: URL) -> Outcome {
        let d = DownloadDelegate(target: target)
        // As a library user's code makes it: the public initializer, roles looked up.
        let session = TransferSession(configuration: configuration(), delegate: d as any TransferSessionDelegate)
        let task = session.downloadTask(with: url)
        task.resume()
        d.done.wait()
        session.finishTasksAndInvalidate()
        let status = task.response?.statusCode ?? 0
        let size = fileSize(target)
        let good = d.error == nil && d.moved && status == 200
        return Outcome(bytes: size, ok: good ? 1 : 0, failed: good ? 0 : 1,
                       note: d.error.map { "\($0)" } ?? (d.moved ? (status == 200 ? "" : "status \(status)") : d.moveError))
    }

    /// `count` data tasks with completion handlers, all submitted at once (window nil), or
    /// with at most `window` tasks in flight (a new one is resumed as each completes).
    static func small(_ url: URL, count: Int, window: Int? = nil) -> Outcome {
        let session = TransferSession(configuration: configuration())
        let ok = Atomic<Int>(0), failed = Atomic<Int>(0), bytes = Atomic<Int>(0)
        let group = DispatchGroup()
        let slots = DispatchSemaphore(value: window ?? count)
        for _ in 0..<count {
            slots.wait()
            group.enter()
            session.dataTask(with: TransferRequest(url: url)) { data, response, error in
                if error == nil, response?.statusCode == 200, let data {
                    ok.add(1, ordering: .relaxed)
                    bytes.add(data.count, ordering: .relaxed)
                } else {
                    failed.add(1, ordering: .relaxed)
                }
                slots.signal()
                group.leave()
            }.resume()
        }
        group.wait()
        session.finishTasksAndInvalidate()
        return Outcome(bytes: Int64(bytes.load(ordering: .relaxed)), ok: ok.load(ordering: .relaxed),
                       failed: failed.load(ordering: .relaxed))
    }
}

func fileSize(_ url: URL) -> Int64 {
    var st = stat()
    return stat(url.path, &st) == 0 ? Int64(st.st_size) : -1
}
