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

    @Test func idleTimeoutFiresOnAStalledBody() async throws {
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForRequest = 0.5 })
        let start = Date()
        let (task, error) = try await run(session, "/stall?size=100000&after=1000")
        #expect(error?.code == .timedOut)
        let elapsed = Date().timeIntervalSince(start)
        // Not before the idle interval; well before any libcurl default (loaded 2-core CI).
        #expect(elapsed >= 0.5 && elapsed < 10, "fired after \(elapsed) s")
        #expect(task.state == .completed)
        session.finishTasksAndInvalidate()
    }

    @Test func idleTimeoutDoesNotFireOnASlowButSteadyBody() async throws {
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForRequest = 1.5 })
        // 80 KB at 20 KB/s: four seconds, more than twice the idle timeout, with a chunk every
        // 0.1 s (slack for a loaded machine or the thread sanitizer).
        let (_, error) = try await run(session, "/drip?size=80000&rate=20000&chunk=2000")
        #expect(error == nil)
        session.finishTasksAndInvalidate()
    }

    @Test func resourceTimeoutFires() async throws {
        let session = TransferSession(configuration: ephemeralConfig { $0.timeoutIntervalForResource = 0.7 })
        let (_, error) = try await run(session, "/drip?size=100000&rate=20000&chunk=2000")
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("timeoutIntervalForResource") == true)
        session.finishTasksAndInvalidate()
    }

    @Test func cancelDuringBody() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let box = Box<TransferError?>()
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/drip?size=1000000&rate=200000"))) { _, _, e in box.set(e) }
        task.resume()
        try await waitUntil { task.countOfBytesReceived > 0 }
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
        let task = session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/delay?ms=3000"))) { _, _, e in box.set(e) }
        task.resume()
        try await Task.sleep(nanoseconds: 100_000_000)
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
        let call = Task { try await session.data(from: url("\(server.httpBase)/delay?ms=5000")) }
        try await Task.sleep(nanoseconds: 100_000_000)
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
        // Bind and close a socket to find a port nothing listens on.
        let e = try await error(for: "http://127.0.0.1:\(closedPort())/")
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

func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
    close(fd)
    return Int(UInt16(bigEndian: addr.sin_port))
}
