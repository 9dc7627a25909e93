import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

@Suite(.serialized) struct InvalidationTests {
    @Test func finishTasksAndInvalidateLetsTasksFinishThenInvalidates() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let gate = UUID().uuidString
        session.dataTask(with: url("\(server.httpBase)/bytes/100?headGate=\(gate)")).resume()
        session.finishTasksAndInvalidate()
        #expect(session.state == .invalidating)
        try await server.waitForGate(gate)
        #expect(session.state == .invalidating, "waits for the running task")
        server.openGate(gate)
        try await waitUntil { rec.state.withLock { $0.invalidated } }
        #expect(rec.events.last == "didBecomeInvalid")
        #expect(rec.events.contains("complete"))
        #expect(rec.error == nil, "the running task finished normally")
        #expect(session.state == .invalidated)
        #expect(session.delegate == nil, "the delegate is released after didBecomeInvalid")
    }

    @Test func invalidateAndCancelCancelsRunningTasks() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let gate = UUID().uuidString
        session.dataTask(with: url("\(server.httpBase)/bytes/10?headGate=\(gate)")).resume()
        try await server.waitForGate(gate)
        session.invalidateAndCancel()
        try await waitUntil { rec.state.withLock { $0.invalidated } }
        #expect(rec.error?.code == .cancelled)
        #expect(rec.events.last == "didBecomeInvalid")
    }

    @Test func invalidateAndCancelAfterFinishTasksCancelsTheRest() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        let gate = UUID().uuidString
        session.dataTask(with: url("\(server.httpBase)/bytes/10?headGate=\(gate)")).resume()
        session.finishTasksAndInvalidate()
        try await server.waitForGate(gate)
        session.invalidateAndCancel()
        try await waitUntil { rec.state.withLock { $0.invalidated } }
        #expect(rec.error?.code == .cancelled)
    }

    @Test func newTasksAreRefusedWithAClearError() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        session.finishTasksAndInvalidate()
        let box = Box<TransferError?>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/1"))) { _, _, e in box.set(e) }
        task.resume()
        #expect(try await box.wait()?.code == .sessionInvalidated)
    }

    @Test func invalidationLeavesNoThreadBehind() async throws {
        let server = try await TestServer.get()
        var names: [String] = []
        for _ in 0..<5 {
            let rec = Recorder()
            let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
            _ = try await session.data(from: url("\(server.httpBase)/bytes/10"))
            names.append(TransferEngine.threadName(session.sessionID))
            #expect(threadNames().contains(names.last!), "the transfer thread is named \(names.last!)")
            session.finishTasksAndInvalidate()
            try await waitUntil { rec.state.withLock { $0.invalidated } }
        }
        // Each session ran a transfer thread; none survives invalidation (it is joined). Other
        // suites' sessions run meanwhile, so threads are told apart by name, not counted.
        let alive = threadNames()
        #expect(names.allSatisfy { !alive.contains($0) }, "still running: \(names.filter(alive.contains))")
    }
}

/// The names (`comm`) of this process's threads.
func threadNames() -> Set<String> {
    let dir = "/proc/self/task"
    let ids = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
    return Set(ids.compactMap { try? String(contentsOfFile: "\(dir)/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
}

@Suite(.serialized) struct UploadTests {
    @Test func uploadFromAFileStreamsInFlatMemory() async throws {
        let server = try await TestServer.get()
        let size = 256 * 1024 * 1024
        let path = NSTemporaryDirectory() + "tk-upload-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let chunk = Data(repeating: 0x5A, count: 1 << 20)
        for _ in 0..<(size >> 20) { handle.write(chunk) }
        try handle.close()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let session = TransferSession(configuration: ephemeralConfig())
        let before = residentBytes()
        let peak = PeakRSS()
        peak.start()
        let (data, response) = try await session.upload(for: TransferRequest(url: url("\(server.httpBase)/echo"), httpMethod: "PUT"),
                                                         fromFile: URL(fileURLWithPath: path))
        peak.stop()
        #expect(response.statusCode == 200)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect((json?["bodyLength"] as? NSNumber)?.intValue == size)
        // RSS is process-wide and other suites run in parallel, so the bound is half of
        // the file: a body read into memory would cost the whole 256 MiB.
        #expect(peak.max - before < 64 * 1024 * 1024 * 2, "resident memory grew by \(peak.max - before) bytes")
        session.finishTasksAndInvalidate()
    }
}

/// Samples resident memory every 20 ms on a background thread.
final class PeakRSS: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var peak: Int64 = 0
    private var running = false
    var max: Int64 { lock.lock(); defer { lock.unlock() }; return peak }
    func start() {
        lock.lock(); running = true; lock.unlock()
        Thread.detachNewThread { [self] in
            while true {
                let r = residentBytes()
                lock.lock()
                peak = Swift.max(peak, r)
                let go = running
                lock.unlock()
                if !go { return }
                usleep(20_000)
            }
        }
    }
    func stop() { lock.lock(); running = false; lock.unlock() }
}
