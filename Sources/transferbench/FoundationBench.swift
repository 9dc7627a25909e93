import Foundation
import FoundationNetworking
import Synchronization

/// Foundation's URLSession (swift-corelibs-foundation's FoundationNetworking, on libcurl too).
enum FoundationBench {
    static func configuration() -> URLSessionConfiguration {
        let c = URLSessionConfiguration.ephemeral
        c.httpMaximumConnectionsPerHost = 6
        return c
    }

    final class DiscardDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: touched only on the session's serial delegate queue, read after `done`.
        var bytes: Int64 = 0
        var error: Error?
        let done = DispatchSemaphore(value: 0)

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            bytes += Int64(data.count)
        }
        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            self.error = error
            done.signal()
        }
    }

    static func serialQueue() -> OperationQueue {
        let q = OperationQueue()
        q.maxConcurrentOperationCount = 1
        return q
    }

    static func bulk(_ url: URL) -> Outcome {
        let d = DiscardDelegate()
        let session = URLSession(configuration: configuration(), delegate: d, delegateQueue: serialQueue())
        let task = session.dataTask(with: url)
        task.resume()
        d.done.wait()
        session.finishTasksAndInvalidate()
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        let good = d.error == nil && status == 200
        return Outcome(bytes: d.bytes, ok: good ? 1 : 0, failed: good ? 0 : 1,
                       note: d.error.map { "\($0)" } ?? (status == 200 ? "" : "status \(status)"))
    }

    final class DownloadDelegate: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
        // @unchecked: touched only on the delegate queue, read after `done`.
        let target: URL
        var moved = false
        var moveError = ""
        var error: Error?
        let done = DispatchSemaphore(value: 0)
        init(target: URL) { self.target = target }

        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                        didFinishDownloadingTo location: URL) {
            (moved, moveError) = placeDownload(location, at: target)
        }
        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            self.error = error
            done.signal()
        }
    }

    static func disk(_ url: URL, to target: URL) -> Outcome {
        let d = DownloadDelegate(target: target)
        let session = URLSession(configuration: configuration(), delegate: d, delegateQueue: serialQueue())
        let task = session.downloadTask(with: url)
        task.resume()
        d.done.wait()
        session.finishTasksAndInvalidate()
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        let size = fileSize(target)
        let good = d.error == nil && d.moved && status == 200
        return Outcome(bytes: size, ok: good ? 1 : 0, failed: good ? 0 : 1,
                       note: d.error.map { "\($0)" } ?? (d.moved ? (status == 200 ? "" : "status \(status)") : d.moveError))
    }

    static func small(_ url: URL, count: Int) -> Outcome {
        let session = URLSession(configuration: configuration())
        let ok = Atomic<Int>(0), failed = Atomic<Int>(0), bytes = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            session.dataTask(with: url) { data, response, error in
                if error == nil, (response as? HTTPURLResponse)?.statusCode == 200, let data {
                    ok.add(1, ordering: .relaxed)
                    bytes.add(data.count, ordering: .relaxed)
                } else {
                    failed.add(1, ordering: .relaxed)
                }
                group.leave()
            }.resume()
        }
        group.wait()
        session.finishTasksAndInvalidate()
        return Outcome(bytes: Int64(bytes.load(ordering: .relaxed)), ok: ok.load(ordering: .relaxed),
                       failed: failed.load(ordering: .relaxed))
    }
}
