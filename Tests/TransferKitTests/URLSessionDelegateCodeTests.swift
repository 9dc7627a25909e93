import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing
import TestSupport
import TransferKit

/// Delegate code as written for Apple's URLSession — Foundation's protocols, types and task
/// classes — where only the line that makes the session names TransferKit (marked below).
private final class Downloader: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    // @unchecked: the fields are written on the delegate queue and read after `done`.
    private(set) var progress: [Double] = []
    private(set) var savedTo: URL?
    private(set) var failure: URLError?
    private(set) var statusCode: Int?
    let destination: URL
    let done = Box<Bool>()
    private var session: URLSession!

    init(destination: URL) {
        self.destination = destination
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = TransferURLSession(configuration: .ephemeral, delegate: self, delegateQueue: queue)  // the changed line
    }

    func start(_ url: URL) -> URLSessionDownloadTask {
        let task = session.downloadTask(with: url)
        task.taskDescription = "download of \(url.lastPathComponent)"
        task.resume()
        return task
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        guard totalBytesExpectedToWrite != NSURLSessionTransferSizeUnknown else { return }
        progress.append(Double(totalBytesWritten) / Double(totalBytesExpectedToWrite))
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        statusCode = (downloadTask.response as? HTTPURLResponse)?.statusCode
        try? FileManager.default.removeItem(at: destination)
        do {
            try FileManager.default.moveItem(at: location, to: destination)
            savedTo = destination
        } catch {
            failure = URLError(.cannotMoveFile)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error = error as? URLError { failure = error }
        session.finishTasksAndInvalidate()
        done.set(true)
    }
}

@Suite struct URLSessionDelegateCodeTests {
    @Test func downloadDelegateWrittenForFoundationRunsOnTransferKit() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory("delegate-code")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let downloader = Downloader(destination: URL(fileURLWithPath: dir + "/saved.bin"))
        let task = downloader.start(url("\(server.httpBase)/bytes/600000?seed=5"))
        #expect(task is TransferURLSessionDownloadTask)
        _ = try await downloader.done.wait()
        #expect(downloader.failure == nil)
        #expect(downloader.statusCode == 200)
        #expect(try Data(contentsOf: try #require(downloader.savedTo)) == expectedBody(600_000, seed: 5))
        #expect(downloader.progress.last == 1.0)
        #expect(downloader.progress == downloader.progress.sorted())
        #expect(task.taskDescription == "download of 600000")
        #expect(task.state == URLSessionTask.State.completed)
    }

    @Test func aFailureReachesTheDelegateAsURLError() async throws {
        let dir = try privateDirectory("delegate-code")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let downloader = Downloader(destination: URL(fileURLWithPath: dir + "/never.bin"))
        let task = downloader.start(url("http://127.0.0.1:1/refused"))
        _ = try await downloader.done.wait()
        #expect(downloader.failure?.code == .cannotConnectToHost)
        #expect((task.error as? URLError)?.code == .cannotConnectToHost)
        #expect(downloader.savedTo == nil)
    }
}
