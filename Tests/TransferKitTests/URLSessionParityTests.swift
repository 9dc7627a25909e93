import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Details where TransferKit now does what URLSession does.
@Suite struct URLSessionParityTests {
    @Test func allTasksListsOnlyUnfinishedTasks() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: url("\(server.httpBase)/bytes/10"))
        let waiting = session.downloadTask(with: url("\(server.httpBase)/bytes/10"))
        let upload = session.uploadTask(with: TransferRequest(url: url("\(server.httpBase)/echo"), httpMethod: "PUT"), from: Data([1]))
        let data = session.dataTask(with: url("\(server.httpBase)/bytes/10"))
        #expect(session.allTasks.map(\.taskIdentifier) == [waiting, upload, data].map(\.taskIdentifier))
        #expect(session.heldTasks.count == 4, "the completed task is still held for snapshots")
        // Foundation's getAllTasks lists resumed tasks only (FoundationBehaviourTests): none here.
        let listed = Box<[Int]>()
        session.getAllTasks { listed.set($0.map(\.taskIdentifier)) }
        #expect(try await listed.wait() == [])
        let kinds = Box<([Int], [Int], [Int])>()
        session.getTasksWithCompletionHandler { d, u, dl in
            kinds.set((d.map(\.taskIdentifier), u.map(\.taskIdentifier), dl.map(\.taskIdentifier)))
        }
        let (d, u, dl) = try await kinds.wait()
        #expect(d.isEmpty && u.isEmpty && dl.isEmpty)
    }

    @Test func pipeliningIsOffByDefaultAndHTTP2StillMultiplexes() async throws {
        #expect(TransferConfiguration.default.httpShouldUsePipelining == false)
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        let a = Box<TransferResponse?>(), b = Box<TransferResponse?>()
        session.dataTask(with: TransferRequest(url: url("\(server.httpsBase)/bytes/10?headGate=\(gate)"))) { _, r, _ in a.set(r) }.resume()
        session.dataTask(with: TransferRequest(url: url("\(server.httpsBase)/bytes/10?headGate=\(gate)"))) { _, r, _ in b.set(r) }.resume()
        // Both requests reached the server before either was answered: they ran at once.
        try await server.waitForGate(gate, arrivals: 2)
        server.openGate(gate)
        let (ra, rb) = (try #require(try await a.wait()), try #require(try await b.wait()))
        #expect(ra.networkProtocolName == "h2" && rb.networkProtocolName == "h2")
        #expect(ra.value(forHTTPHeaderField: "X-Connection-ID") == rb.value(forHTTPHeaderField: "X-Connection-ID"),
                "two concurrent h2 requests share one connection")
    }
}

@Suite struct TaskProgressTests {
    @Test func progressFollowsTheBytesAndEndsWhole() async throws {
        let server = try await TestServer.get()
        let name = "progress-\(UUID().uuidString.prefix(6)).bin"
        server.setFile(name, size: 300_000, seed: 6)
        let gate = UUID().uuidString
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        let task = session.downloadTask(with: url("\(server.httpBase)/files/\(name)?gate=\(gate)&holdAfter=100000"))
        #expect(task.progress.totalUnitCount == -1)
        task.resume()
        try await server.waitForGate(gate)
        try await waitUntil("100,000 bytes counted") { task.countOfBytesReceived == 100_000 }
        let mid = task.progress
        #expect(mid.totalUnitCount == 300_000)
        #expect(mid.completedUnitCount == 100_000)
        #expect(abs(mid.fractionCompleted - 1.0 / 3) < 0.001)
        #expect((mid.userInfo[.throughputKey] as? NSNumber).map { $0.intValue > 0 } == true)
        #expect(mid.userInfo[.estimatedTimeRemainingKey] != nil)
        server.openGate(gate)
        try await rec.waitForCompletion()
        #expect(task.progress === mid, "one object per task")
        #expect(task.progress.fractionCompleted == 1)
        #expect(task.progress.completedUnitCount == 300_000)
    }
}

@Suite struct MetricsOrderTests {
    /// Every date of a task, across its hops, in time order: the task interval holds every
    /// transaction, each transaction's phases are non-decreasing, and a hop starts after the
    /// one before it ended (dates out of order by microseconds would show).
    @Test(arguments: ["http", "https"])
    func datesAreInOrderAcrossHops(scheme: String) async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        let base = scheme == "http" ? server.httpBase : server.httpsBase
        session.dataTask(with: url("\(base)/redirect/3?status=307")).resume()
        try await rec.waitForCompletion()
        let m = try #require(rec.state.withLock { $0.metrics })
        #expect(m.transactionMetrics.count == 4)
        var floor = m.taskIntervalStart
        for t in m.transactionMetrics {
            let dates = [t.fetchStartDate, t.queueEndDate, t.domainLookupStartDate, t.domainLookupEndDate, t.connectStartDate,
                         t.secureConnectionStartDate, t.secureConnectionEndDate, t.connectEndDate, t.requestStartDate,
                         t.responseStartDate, t.responseEndDate].compactMap { $0 }
            for d in dates {
                #expect(d >= floor, "\(d.timeIntervalSince(floor) * 1e6) µs before the date before it")
                floor = max(floor, d)
            }
            if let end = t.requestEndDate { #expect(end >= t.requestStartDate ?? end) }
        }
        #expect(try #require(m.taskIntervalEnd) >= floor)
    }
}

@Suite struct OperationQueueDeliveryTests {
    final class QueueCheck: TransferDataDelegate, @unchecked Sendable {
        // @unchecked: `onQueue` is written on the delegate queue only, read after completion.
        let queue: DispatchQueue
        let done = Locked(false)
        nonisolated(unsafe) var onQueue = true
        init(_ queue: DispatchQueue) { self.queue = queue }
        func check() { if onQueue { onQueue = DispatchQueue.getSpecific(key: queueMark) == queue.label } }
        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                     completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
            check()
            completionHandler(.allow)
        }
        func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) { check() }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            check()
            done.withLock { $0 = true }
        }
    }

    @Test func callbacksRunOnTheOperationQueuesUnderlyingQueue() async throws {
        let server = try await TestServer.get()
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 1
        let session = TransferSession(configuration: ephemeralConfig(), delegate: nil, operationQueue: operations)
        defer { session.finishTasksAndInvalidate() }
        let underlying = try #require(operations.underlyingQueue)
        #expect(session.delegateQueue === underlying)
        underlying.setSpecific(key: queueMark, value: underlying.label)
        let check = QueueCheck(underlying)
        let checked = TransferSession(configuration: ephemeralConfig(), delegate: check, operationQueue: operations)
        defer { checked.finishTasksAndInvalidate() }
        checked.dataTask(with: url("\(server.httpBase)/bytes/200000")).resume()
        try await waitUntil { check.done.withLock { $0 } }
        #expect(check.onQueue)
        // The queue's own operations run on the same serial queue.
        let ran = Box<Bool>()
        operations.addOperation { ran.set(DispatchQueue.getSpecific(key: queueMark) == underlying.label) }
        #expect(try await ran.wait())
    }
}

/// Marks a queue so a callback can tell it runs there.
private let queueMark = DispatchSpecificKey<String>()

@Suite struct DataTaskBodyTests {
    /// Apple's data tasks send the request's `httpBody`; TransferSession's did not.
    @Test func dataTaskSendsTheRequestBody() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let body = Data("hello body".utf8)
        let request = TransferRequest(url: url("\(server.httpBase)/echo"), httpMethod: "POST", httpBody: body)
        let (data, _) = try await session.data(for: request)
        let echo = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(echo["bodyLength"] as? Int == body.count)
        #expect(echo["bodySHA256"] as? String == sha256(body))
        let box = Box<Data>()
        session.dataTask(with: request) { d, _, _ in box.set(d ?? Data()) }.resume()
        let again = try #require(try JSONSerialization.jsonObject(with: try await box.wait()) as? [String: Any])
        #expect(again["bodyLength"] as? Int == body.count)
    }
}
