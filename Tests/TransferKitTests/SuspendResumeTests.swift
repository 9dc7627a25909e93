import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

@Suite(.serialized) struct SuspendResumeTests {
    /// Suspend mid-flight: no bytes delivered while suspended (client) and the server's writes
    /// stop once socket buffers fill (back-pressure); resume finishes byte-exact.
    @Test func suspendStopsBytesBothSidesAndResumeIsByteExact() async throws {
        // Its own server: the byte counter must see this transfer only.
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let size = 64 * 1024 * 1024
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: rec)
        // A paced body so the transfer is surely mid-flight when we suspend.
        let task = session.downloadTask(with: url("\(server.httpBase)/drip?size=\(size)&rate=10000000&chunk=65536"))
        task.resume()
        try await waitUntil("first bytes") { task.countOfBytesReceived > 1_000_000 }
        task.suspend()
        #expect(task.state == .suspended)
        // The server keeps writing until the kernel's socket buffers (which auto-tune) are
        // full, then its writes stall. Wait for the stall: it must come long before the body
        // is done (a server without back-pressure would finish the 64 MiB in ~6 s).
        var last = server.stats.bytesWritten
        var flat = false
        for _ in 0..<40 {
            try await Task.sleep(nanoseconds: 250_000_000)
            let now = server.stats.bytesWritten
            if now == last { flat = true; break }
            last = now
        }
        #expect(flat, "server writes never stalled")
        #expect(last < Int64(size / 2), "the stall came after \(last) bytes, not at the end")
        let clientAt = task.countOfBytesReceived
        try await Task.sleep(nanoseconds: 1_500_000_000)
        #expect(task.countOfBytesReceived == clientAt, "no bytes delivered while suspended")
        // (A late window update may let a last segment or two through.)
        #expect(server.stats.bytesWritten - last < 256 * 1024, "server writes stay stalled while suspended")
        #expect(task.state == .suspended)
        task.resume()
        try await rec.waitForCompletion(timeout: 60)
        #expect(rec.error == nil)
        let file = rec.state.withLock { $0.downloaded }
        #expect(file.map(sha256) == sha256(expectedBody(size)))
        session.finishTasksAndInvalidate()
    }

    /// A task suspended before it has a connection (libcurl cannot pause those) still stops,
    /// and resumes to completion.
    @Test func suspendBeforeConnectionThenResume() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let box = Box<(Data?, TransferError?)>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/delay?ms=200&size=1000"))) { d, _, e in
            box.set((d, e))
        }
        task.resume()
        task.suspend()
        #expect(task.state == .suspended)
        try await Task.sleep(nanoseconds: 600_000_000)
        #expect(box.get == nil)
        #expect(task.countOfBytesReceived == 0)
        task.resume()
        let (data, error) = try await box.wait()
        #expect(error == nil)
        #expect(data.map(sha256) == sha256(expectedBody(1000)))
        session.finishTasksAndInvalidate()
    }

    @Test func suspendedTaskIsNotSubjectToTimeouts() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.timeoutIntervalForRequest = 0.5
            $0.timeoutIntervalForResource = 1.5
        })
        let box = Box<(Data?, TransferError?)>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/drip?size=400000&rate=400000"))) { d, _, e in
            box.set((d, e))
        }
        task.resume()
        try await waitUntil { task.countOfBytesReceived > 0 }
        task.suspend()
        try await Task.sleep(nanoseconds: 2_000_000_000)  // longer than both timeouts
        #expect(box.get == nil, "no timeout fired while suspended")
        task.resume()
        let (data, error) = try await box.wait()
        #expect(error == nil)
        #expect(data?.count == 400_000)
        session.finishTasksAndInvalidate()
    }
}
