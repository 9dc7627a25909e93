import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// Limits changed while transfers run (DECISIONS 176, 177): a task's bandwidth, the session's
/// shared bandwidth and the session's connections per host. Each limit is set while the
/// transfer is held at a server gate, so it surely applies mid-transfer. Only lower bounds on
/// time are asserted (a limit makes a transfer slower than its bytes allow at that rate; a
/// loaded machine only makes it slower still); that a lifted limit lets a transfer finish is
/// shown by a remainder that would take minutes at the old rate.
@Suite struct LiveLimitTests {
    /// A download of `size` pattern bytes over HTTP/1.1 held after its first 64 KiB.
    func heldDownload(_ server: LoopbackServer, size: Int, gate: String) -> TransferRequest {
        TransferRequest(url: url("\(server.httpBase)/bytes/\(size)?gate=\(gate)&holdAfter=65536"))
    }

    /// Returns once the session's transfer thread has run every command sent before this call.
    /// Setting a limit sends a command and returns. The thread runs commands in the order they
    /// come, so a task started after the limit has finished only once the limit is in place.
    /// Without this wait, a thread that was already inside libcurl when the gate opened read
    /// the first megabytes before it applied the limit.
    func commandsRun(_ session: TransferSession, _ server: LoopbackServer) async throws {
        let done = Box<Bool>()
        session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/1"))) { _, _, e in done.set(e == nil) }.resume()
        #expect(try await done.wait())
    }

    @Test func aLimitSetMidTransferSlowsItAndLiftingItLetsItFinish() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        defer { server.openGate(gate) }
        // 128 MiB: what is left after the measurement would take 11 minutes at the limit,
        // longer than any event deadline, so the download ends only if lifting works. A file,
        // not memory.
        let size = 128 << 20
        let result = Box<Int64>()
        let task = session.downloadTask(with: heldDownload(server, size: size, gate: gate)) { location, _, e in
            let bytes = location.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int64 }
            result.set(e == nil ? bytes ?? -1 : -1)
        }
        task.resume()
        try await server.waitForGate(gate, arrivals: 1)
        let limit: Int64 = 200_000
        task.rateLimit = limit
        #expect(task.snapshot().rateLimit == limit)
        try await commandsRun(session, server)
        let opened = ContinuousClock.now
        server.openGate(gate)
        // 1.5 MB past the gate: one receive buffer (512 KiB) may be taken at once (the
        // guard lets a chunk into debt), the rest is paced.
        let mark: Int64 = 65_536 + 1_500_000
        try await waitUntil("1.5 MB past the gate") { task.countOfBytesReceived >= mark }
        let elapsed = ContinuousClock.now - opened
        let paced = Double(1_500_000 - 524_288) / Double(limit)
        print("task limit \(limit) B/s: 1.5 MB past the gate in \(elapsed) (at least \(paced) s expected)")
        #expect(elapsed >= .milliseconds(Int(paced * 900)), "1.5 MB at \(limit) B/s took \(elapsed)")
        task.rateLimit = 0
        #expect(try await result.wait() == Int64(size))
    }

    @Test func aSessionLimitIsSharedByItsRunningTransfers() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        defer { server.openGate(gate) }
        let size = 3 << 20
        let done = Counter()
        let tasks = (0..<3).map { _ in
            session.dataTask(with: heldDownload(server, size: size, gate: gate)) { d, _, e in
                if e == nil, d?.count == size { _ = done.increment() }
            }
        }
        tasks.forEach { $0.resume() }
        try await server.waitForGate(gate, arrivals: 3)
        let limit: Int64 = 1_500_000
        session.rateLimit = limit
        #expect(session.snapshot().rateLimit == limit)
        try await commandsRun(session, server)
        let before = tasks.reduce(Int64(0)) { $0 + $1.countOfBytesReceived }
        let opened = ContinuousClock.now
        server.openGate(gate)
        try await waitForCount("three downloads", reaches: 3) { done.value }
        let elapsed = ContinuousClock.now - opened
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let moved = Double(3 * Int64(size) - before)
        // The aggregate stays within 10 % of the session's limit (plus one receive buffer per
        // transfer that may arrive before libcurl's first rate check).
        let allowed = (moved - 3 * 524_288) / (Double(limit) * 1.1)
        print("session limit \(limit) B/s: \(Int(moved)) bytes in \(seconds) s = \(Int(moved / seconds)) B/s")
        #expect(seconds >= allowed, "aggregate \(Int(moved / seconds)) B/s over a \(limit) B/s limit")
    }

    @Test func raisingConnectionsPerHostStartsWaitingTransfers() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig { $0.httpMaximumConnectionsPerHost = 1 })
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        defer { server.openGate(gate) }
        let done = Counter()
        for _ in 0..<8 {
            // HTTP/1.1: a request per connection, so arrivals at the gate count connections.
            session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/10?headGate=\(gate)"))) { _, _, e in
                if e == nil { _ = done.increment() }
            }.resume()
        }
        try await server.waitForGate(gate, arrivals: 1)
        #expect(session.maximumConnectionsPerHost == 1)
        session.maximumConnectionsPerHost = 3
        #expect(session.snapshot().maxConnectionsPerHost == 3)
        // With one connection the other seven wait until the gate opens: three arrivals come
        // only from the raised limit.
        try await server.waitForGate(gate, arrivals: 3)
        server.openGate(gate)
        try await waitForCount("eight completions", reaches: 8) { done.value }
    }

    /// An upload's limit is libcurl's `CURLOPT_MAX_SEND_SPEED_LARGE` (set before it starts
    /// here: the server has no gate for request bodies); `/echo` reads the body as it comes.
    @Test func anUploadsLimitPacesWhatItSends() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let size = 2_000_000
        let result = Box<Int>()
        let task = session.uploadTask(with: TransferRequest(url: url("\(server.httpBase)/echo"), httpMethod: "PUT"),
                                      from: expectedBody(size)) { d, _, e in result.set(e == nil ? d?.count ?? -1 : -1) }
        let limit: Int64 = 1_000_000
        task.rateLimit = limit
        let started = ContinuousClock.now
        task.resume()
        #expect(try await result.wait() > 0)
        let elapsed = ContinuousClock.now - started
        print("upload limit \(limit) B/s: \(size) bytes sent in \(elapsed)")
        #expect(task.countOfBytesSent == Int64(size))
        // At the limit, with 512 KiB of slack for what libcurl sends between its rate checks.
        #expect(elapsed >= .milliseconds(Int(Double(size - 524_288) / Double(limit) * 900)), "\(elapsed)")
    }

    /// A transfer the engine pauses for its limit is not idle. Injected time (TestEngineClock):
    /// at 100 B/s the first libcurl write (most of the 24 kB body) is over two minutes of debt,
    /// so no byte comes while the clock moves on in 30-second steps (each under the 60-second
    /// idle interval, as real time would pass) to two minutes; the timeout must not fire. Then
    /// the limit is lifted and the body completes.
    @Test func aPauseForTheLimitIsNotAnIdleTimeout() async throws {
        let server = try await TestServer.get()
        let clock = TestEngineClock()
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForRequest = 60 }, clock: clock)
        defer { session.finishTasksAndInvalidate() }
        let size = 24_000
        let result = Box<(Int, TransferError?)>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/\(size)"))) { d, _, e in
            result.set((d?.count ?? -1, e))
        }
        task.rateLimit = 100
        task.resume()
        try await waitUntil("the first write taken into debt") { task.countOfBytesReceived > 0 }
        let first = task.countOfBytesReceived
        for seconds in stride(from: 30.0, through: 120, by: 30) {
            try await clock.advance(session, to: seconds)
            #expect(result.get == nil, "ended at \(seconds) s: \(String(describing: result.get?.1))")
        }
        #expect(task.countOfBytesReceived == first, "bytes came while the debt was unpaid")
        task.rateLimit = 0
        let (count, error) = try await result.wait()
        #expect(error == nil, "\(String(describing: error))")
        #expect(count == size)
    }
}
