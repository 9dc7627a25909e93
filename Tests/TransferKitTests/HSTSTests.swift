import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// HSTS per configuration kind (DECISIONS 67), against the loopback TLS server under
/// the name `localhost` (HSTS never applies to IP literals). A plain-http request to the TLS
/// port cannot succeed, so success proves the request went over https.
@Suite struct HSTSTests {
    static let sts = "Strict-Transport-Security=max-age%3D3600%3B%20includeSubDomains"

    private func privateDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "hsts-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    private func invalidateAndWait(_ session: TransferSession, _ rec: Recorder) async throws {
        session.finishTasksAndInvalidate()
        try await waitUntil("session invalidated") { rec.state.withLock { $0.invalidated } }
    }

    @Test func ephemeralSessionUpgradesAfterLearningAndWritesNothing() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.stateDirectory = dir }, delegate: rec)
        let plain = url("http://localhost:\(server.httpsPort)/bytes/5?seed=2")
        // Before: plain http to the TLS port fails.
        await #expect(throws: TransferError.self) { _ = try await session.data(from: plain) }
        _ = try await session.data(from: url("\(server.httpsBase)/response-headers?\(Self.sts)"))
        let (data, response) = try await session.data(from: plain)
        #expect(data == expectedBody(5, seed: 2))
        #expect(response.url.scheme == "https")
        #expect(response.url.port == server.httpsPort)
        try await invalidateAndWait(session, rec)
        #expect(!FileManager.default.fileExists(atPath: dir + "/hsts.txt"), "ephemeral HSTS stays in memory")
        // A new ephemeral session knows nothing.
        let fresh = TransferSession(configuration: ephemeralConfig())
        defer { fresh.invalidateAndCancel() }
        await #expect(throws: TransferError.self) { _ = try await fresh.data(from: plain) }
    }

    @Test func defaultSessionPersistsHSTSForTheNextSession() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func config() -> TransferConfiguration {
            var c = TransferConfiguration.default
            c.stateDirectory = dir
            c.additionalTrustedCAFile = TestServer.caFile
            return c
        }
        let rec = Recorder()
        let first = TransferSession(configuration: config(), delegate: rec)
        _ = try await first.data(from: url("\(server.httpsBase)/response-headers?\(Self.sts)"))
        try await invalidateAndWait(first, rec)
        let path = dir + "/hsts.txt"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").contains { $0.hasPrefix(".localhost \"") }, "curl's format: \(text)")
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)

        let rec2 = Recorder()
        let second = TransferSession(configuration: config(), delegate: rec2)
        let (data, response) = try await second.data(from: url("http://localhost:\(server.httpsPort)/bytes/7?seed=3"))
        #expect(data == expectedBody(7, seed: 3))
        #expect(response.url.scheme == "https")
        try await invalidateAndWait(second, rec2)
    }

    @Test func maxAgeZeroRemovesTheHostFromTheFile() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var c = TransferConfiguration.default
        c.stateDirectory = dir
        c.additionalTrustedCAFile = TestServer.caFile
        let path = dir + "/hsts.txt"
        try "localhost \"unlimited\"\nother.example \"unlimited\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let rec = Recorder()
        let session = TransferSession(configuration: c, delegate: rec)
        _ = try await session.data(from: url("\(server.httpsBase)/response-headers?Strict-Transport-Security=max-age%3D0"))
        // Forgotten at once: plain http to the TLS port fails again.
        await #expect(throws: TransferError.self) {
            _ = try await session.data(from: url("http://localhost:\(server.httpsPort)/bytes/1"))
        }
        try await invalidateAndWait(session, rec)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == ["other.example \"unlimited\""])
    }

    @Test func aRedirectToPlainHTTPIsUpgradedToo() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: url("\(server.httpsBase)/response-headers?\(Self.sts)"))
        let target = "http://localhost:\(server.httpsPort)/bytes/4?seed=9"
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (data, response) = try await session.data(from: url("\(server.httpsBase)/redirect-to?url=\(encoded)"))
        #expect(data == expectedBody(4, seed: 9))
        #expect(response.url.absoluteString == "https://localhost:\(server.httpsPort)/bytes/4?seed=9")
    }

    @Test func ipLiteralsAreNeverUpgraded() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: url("https://127.0.0.1:\(server.httpsPort)/response-headers?\(Self.sts)"))
        await #expect(throws: TransferError.self) {
            _ = try await session.data(from: url("http://127.0.0.1:\(server.httpsPort)/bytes/5"))
        }
    }

    @Test func plainHTTPResponsesTeachNothing() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        // An STS header over plain http must be ignored (RFC 6797 8.1).
        _ = try await session.data(from: url("http://localhost:\(server.httpPort)/response-headers?\(Self.sts)"))
        let (_, response) = try await session.data(from: url("http://localhost:\(server.httpPort)/bytes/3"))
        #expect(response.url.scheme == "http")
    }
}
