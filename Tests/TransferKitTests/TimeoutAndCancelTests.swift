import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

@Suite struct TimeoutAndCancelTests {
    private func run(_ session: TransferSession, _ path: String, base: String? = nil) async throws -> (TransferTask, TransferError?) {
        let server = try await TestServer.get()
        let box = Box<TransferError?>()
        let task = session.dataTask(with: TransferRequest(url: url("\(base ?? server.httpBase)\(path)"))) { _, _, e in box.set(e) }
        task.resume()
        return (task, try await box.wait())
    }

    /// A download held at a gate after `holdAfter` body bytes, once the client has them.
    private func heldDownload(_ session: TransferSession, size: Int = 100_000, holdAfter: Int = 1000)
        async throws -> (TransferTask, Box<TransferError?>, String) {
        let server = try await TestServer.get()
        let gate = UUID().uuidString
        let box = Box<TransferError?>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/\(size)?gate=\(gate)&holdAfter=\(holdAfter)"))) { _, _, e in
            box.set(e)
        }
        task.resume()
        try await server.waitForGate(gate)
        try await waitUntil("\(holdAfter) bytes at the client") { task.countOfBytesReceived == Int64(holdAfter) }
        return (task, box, gate)
    }

    /// Injected time (TestEngineClock): a 60-second idle timeout, tested without waiting for it.
    /// "Not yet" is checked at half the interval: the real seconds a loaded machine (or a
    /// sanitizer) spends between the last byte and the scan add to the skew.
    @Test func idleTimeoutFiresOnAStalledBody() async throws {
        let clock = TestEngineClock()
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForRequest = 60 }, clock: clock)
        let (task, box, _) = try await heldDownload(session)
        try await clock.advance(session, to: 30)
        #expect(box.get == nil, "fired before the idle interval")
        #expect(task.state == .running)
        try await clock.advance(session, to: 61)
        let error = try await box.wait()
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("timeoutIntervalForRequest") == true)
        #expect(task.state == .completed)
        session.finishTasksAndInvalidate()
    }

    /// A gap shorter than the idle interval does not fire, and the body then completes.
    @Test func idleTimeoutDoesNotFireOnASlowButSteadyBody() async throws {
        let server = try await TestServer.get()
        let clock = TestEngineClock()
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForRequest = 60 }, clock: clock)
        let (task, box, gate) = try await heldDownload(session)
        try await clock.advance(session, to: 30)
        #expect(box.get == nil)
        try await clock.advance(session, to: 0)
        server.openGate(gate)
        #expect(try await box.wait() == nil)
        #expect(task.countOfBytesReceived == 100_000)
        session.finishTasksAndInvalidate()
    }

    @Test func resourceTimeoutFires() async throws {
        let clock = TestEngineClock()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.timeoutIntervalForRequest = 100_000
            $0.timeoutIntervalForResource = 600
        }, clock: clock)
        let (_, box, _) = try await heldDownload(session)
        try await clock.advance(session, to: 300)
        #expect(box.get == nil)
        try await clock.advance(session, to: 601)
        let error = try await box.wait()
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("timeoutIntervalForResource") == true)
        session.finishTasksAndInvalidate()
    }

    /// Real time, where the test is about the real timer path: a short idle timeout fires
    /// not before its interval (a lower bound) and long before anything else would end the
    /// transfer (a wide upper bound: a loaded machine or a sanitizer only makes it later).
    @Test func idleTimeoutFiresInRealTime() async throws {
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForRequest = 0.5 })
        let server = try await TestServer.get()
        let start = Date()
        let box = Box<(TransferError?, Date)>()
        session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/100000?gate=\(UUID().uuidString)&holdAfter=1000"))) { _, _, e in
            box.set((e, Date()))
        }.resume()
        let (error, at) = try await box.wait()
        #expect(error?.code == .timedOut)
        let elapsed = at.timeIntervalSince(start)
        #expect(elapsed >= 0.5 && elapsed < 60, "fired after \(elapsed) s")
        session.finishTasksAndInvalidate()
    }

    @Test func cancelDuringBody() async throws {
        let session = TransferSession(configuration: ephemeralConfig())
        let (task, box, _) = try await heldDownload(session, size: 1_000_000, holdAfter: 65536)
        task.cancel()
        #expect(task.state == .canceling || task.state == .completed)
        let error = try await box.wait()
        #expect(error?.code == .cancelled)
        #expect(task.state == .completed)
        session.finishTasksAndInvalidate()
    }

    @Test func cancelBeforeHeaders() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let box = Box<TransferError?>()
        let gate = UUID().uuidString
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/10?headGate=\(gate)"))) { _, _, e in box.set(e) }
        task.resume()
        try await server.waitForGate(gate)
        #expect(task.response == nil)
        task.cancel()
        #expect(try await box.wait()?.code == .cancelled)
        session.finishTasksAndInvalidate()
    }

    @Test func cancelBeforeResume() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let box = Box<TransferError?>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/10"))) { _, _, e in box.set(e) }
        task.cancel()
        #expect(try await box.wait()?.code == .cancelled)
        #expect(task.state == .completed)
        task.resume()  // ignored
        #expect(task.state == .completed)
        session.finishTasksAndInvalidate()
    }

    @Test func asyncCancellationCancelsTheTransfer() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let gate = UUID().uuidString
        let call = Task { try await session.data(from: url("\(server.httpBase)/bytes/10?headGate=\(gate)")) }
        try await server.waitForGate(gate)
        call.cancel()
        do {
            _ = try await call.value
            Issue.record("expected a cancelled error")
        } catch let e as TransferError {
            #expect(e.code == .cancelled)
        }
        session.finishTasksAndInvalidate()
    }
}

@Suite struct ErrorTests {
    private func error(for urlString: String, _ change: (inout TransferConfiguration) -> Void = { _ in }) async throws -> TransferError? {
        let session = TransferSession(configuration: ephemeralConfig(change))
        defer { session.finishTasksAndInvalidate() }
        let box = Box<TransferError?>()
        session.dataTask(with: TransferRequest(url: url(urlString))) { _, _, e in box.set(e) }.resume()
        return try await box.wait()
    }

    @Test func unknownHost() async throws {
        let e = try await error(for: "http://no-such-host.invalid/")
        #expect(e?.code == .cannotFindHost)
        #expect(e?.curlCode == 6)
    }

    @Test func refusedPort() async throws {
        let (port, release) = try reservedRefusedPort()
        defer { release() }
        let e = try await error(for: "http://127.0.0.1:\(port)/")
        #expect(e?.code == .cannotConnectToHost)
        #expect(e?.curlCode == 7)
    }

    @Test func untrustedCertificate() async throws {
        let server = try await TestServer.get()
        let e = try await error(for: "\(server.httpsBase)/bytes/10") { $0.additionalTrustedCAFile = nil }
        #expect(e?.code == .serverCertificateUntrusted)
        #expect(e?.curlCode == 60)
    }

    @Test func unsupportedScheme() async throws {
        let e = try await error(for: "gopher://127.0.0.1/x")
        #expect(e?.code == .unsupportedURL)
    }

    @Test func connectionLostMidBody() async throws {
        let server = try await TestServer.get()
        let e = try await error(for: "\(server.httpBase)/reset?size=1000000&after=100000")
        #expect(e?.code == .networkConnectionLost)
    }

    @Test func errorTableMapsEveryCodeWeRely() {
        let table: [(Int32, TransferError.Code)] = [
            (1, .unsupportedURL), (3, .badURL), (6, .cannotFindHost), (7, .cannotConnectToHost),
            (18, .networkConnectionLost), (23, .cannotWriteToFile), (28, .timedOut), (35, .secureConnectionFailed),
            (42, .cancelled), (52, .badServerResponse), (56, .networkConnectionLost), (60, .serverCertificateUntrusted),
            (90, .serverCertificateUntrusted), (9999, .unknown),
        ]
        for (curl, code) in table { #expect(CurlErrorMapping.code(forCurlCode: curl) == code, "curl \(curl)") }
    }
}

