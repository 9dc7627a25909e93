import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

@Suite(.serialized) struct SessionTests {
    private func connectionID(_ session: TransferSession, _ base: String) async throws -> String {
        let (data, _) = try await session.data(from: url("\(base)/conn"))
        return String(decoding: data, as: UTF8.self)
    }

    @Test func connectionsAreReusedWithinASessionAndNeverAcross() async throws {
        let server = try await TestServer.get()
        let a = TransferSession(configuration: ephemeralConfig())
        let b = TransferSession(configuration: ephemeralConfig())
        let a1 = try await connectionID(a, server.httpBase)
        let a2 = try await connectionID(a, server.httpBase)
        let b1 = try await connectionID(b, server.httpBase)
        #expect(a1 == a2, "same session reuses its connection")
        #expect(a1 != b1, "another session opens its own")
        a.finishTasksAndInvalidate()
        b.finishTasksAndInvalidate()
    }

    @Test func perHostConnectionLimitIsHonoured() async throws {
        // Its own server: other suites run in parallel on the shared one.
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let session = TransferSession(configuration: ephemeralConfig {
            $0.httpMaximumConnectionsPerHost = 2
            $0.allowsHTTP2 = false
        })
        let box = Box<Int>()
        let counter = Counter()
        // Six requests whose heads wait at one gate: exactly two reach the server (one per
        // allowed connection) and the rest queue until the gate opens.
        let gate = UUID().uuidString
        for _ in 0..<6 {
            session.dataTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/10?headGate=\(gate)"))) { _, _, _ in
                if counter.increment() == 6 { box.set(6) }
            }.resume()
        }
        try await server.waitForGate(gate, arrivals: 2)
        #expect(server.stats.activeConnections == 2)
        server.openGate(gate)
        _ = try await box.wait()
        #expect(server.stats.maxConcurrentConnections == 2)
        #expect(server.gateArrivals(gate) == 6)
        session.finishTasksAndInvalidate()
    }

    @Test func concurrentHTTP1RequestsRunOnParallelConnections() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())  // HTTP/2 allowed, plain http
        // Both heads are held at one gate: the second request reaches the server while the
        // first is still unanswered only if they run on parallel connections.
        let gate = UUID().uuidString
        async let a = session.data(from: url("\(server.httpBase)/bytes/1?headGate=\(gate)"))
        async let b = session.data(from: url("\(server.httpBase)/bytes/1?headGate=\(gate)"))
        try await server.waitForGate(gate, arrivals: 2)
        server.openGate(gate)
        let (ra, rb) = try await (a, b)
        #expect(ra.1.value(forHTTPHeaderField: "X-Connection-ID") != rb.1.value(forHTTPHeaderField: "X-Connection-ID"))
        session.finishTasksAndInvalidate()
    }

    @Test func http2OverTLSMultiplexes() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let (data, response) = try await session.data(from: url("\(server.httpsBase)/bytes/200000"))
        #expect(response.networkProtocolName == "h2")
        #expect(sha256(data) == sha256(expectedBody(200_000)))
        session.finishTasksAndInvalidate()
    }

    @Test func http1WhenHTTP2IsNotAllowed() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false })
        let (_, response) = try await session.data(from: url("\(server.httpsBase)/bytes/10"))
        #expect(response.networkProtocolName == "http/1.1")
        session.finishTasksAndInvalidate()
    }

    @Test func ephemeralCookiesStayInTheirSession() async throws {
        let server = try await TestServer.get()
        let a = TransferSession(configuration: ephemeralConfig())
        let b = TransferSession(configuration: ephemeralConfig())
        _ = try await a.data(from: url("\(server.httpBase)/cookies/set?flavour=oat"))
        let (seenByA, _) = try await a.data(from: url("\(server.httpBase)/cookies"))
        let (seenByB, _) = try await b.data(from: url("\(server.httpBase)/cookies"))
        #expect(String(decoding: seenByA, as: UTF8.self).contains("oat"))
        #expect(!String(decoding: seenByB, as: UTF8.self).contains("oat"))
        a.finishTasksAndInvalidate()
        b.finishTasksAndInvalidate()
    }

    @Test func defaultSessionCookiesPersistAcrossSessions() async throws {
        let server = try await TestServer.get()
        let dir = NSTemporaryDirectory() + "tk-cookies-\(UUID().uuidString)"
        var config = TransferConfiguration.default
        config.stateDirectory = dir
        let first = TransferSession(configuration: config)
        // A cookie with an expiry: session cookies stay in memory (DECISIONS 101).
        _ = try await first.data(from: url("\(server.httpBase)/cookies/keep?jar=kept"))
        first.finishTasksAndInvalidate()
        try await waitUntil { first.state == .invalidated }
        #expect(FileManager.default.fileExists(atPath: dir + "/cookies.txt"))
        let second = TransferSession(configuration: config)
        let (seen, _) = try await second.data(from: url("\(server.httpBase)/cookies"))
        #expect(String(decoding: seen, as: UTF8.self).contains("kept"))
        second.finishTasksAndInvalidate()
        try? FileManager.default.removeItem(atPath: dir)
    }

    @Test func configurationIsCopiedAtCreation() {
        var config = ephemeralConfig()
        let session = TransferSession(configuration: config)
        config.httpMaximumConnectionsPerHost = 1
        #expect(session.configuration.httpMaximumConnectionsPerHost == 6)
        session.finishTasksAndInvalidate()
    }

    @Test func taskIdentifiersAreUniqueWithinASession() {
        let session = TransferSession(configuration: ephemeralConfig())
        let ids = (0..<50).map { _ in session.dataTask(with: url("http://127.0.0.1:1/")).taskIdentifier }
        #expect(Set(ids).count == 50)
        session.invalidateAndCancel()
    }
}

final class Counter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var n = 0
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}
