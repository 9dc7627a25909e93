import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Credentials stay with their origin across redirects; header lines that could
/// smuggle a second header or request are refused with a typed error. Real loopback server.
@Suite struct RequestSafetyTests {
    /// The request the server saw for `/headers` after following `start`.
    func finalHeaders(_ start: String, request: [HTTPHeader] = [], session: [HTTPHeader] = [],
                      trusted: Bool = false, server: LoopbackServer, marker: String) async throws -> RequestRecord? {
        let s = TransferSession(configuration: ephemeralConfig {
            $0.httpAdditionalHeaders = session
            $0.redirectsKeepCredentials = trusted
        })
        defer { s.invalidateAndCancel() }
        let (_, response) = try await s.data(for: TransferRequest(url: url(start), headers: request))
        #expect(response.statusCode == 200)
        return server.stats.requests.last { $0.path.contains(marker) }
    }

    func redirect(from base: String, to target: String) -> String {
        "\(base)/redirect-to?url=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    @Test func credentialsDroppedWhenTheRedirectLeavesTheOrigin() async throws {
        let server = try await TestServer.get()
        let other = "http://localhost:\(server.httpPort)"  // same port, other host: another origin
        let marker = "m=\(UUID().uuidString)"
        let creds = [HTTPHeader("Authorization", "Bearer s3cret"), HTTPHeader("Cookie", "sid=s3cret"),
                     HTTPHeader("Proxy-Authorization", "Basic s3cret"), HTTPHeader("X-Plain", "kept")]
        for (req, ses) in [(creds, [HTTPHeader]()), ([], creds)] {
            let seen = try #require(try await finalHeaders(redirect(from: server.httpBase, to: "\(other)/headers?\(marker)"),
                                                           request: req, session: ses, server: server, marker: marker))
            #expect(seen.header("Authorization") == nil && seen.header("Proxy-Authorization") == nil)
            #expect(seen.header("Cookie").map { !$0.contains("s3cret") } ?? true)
            #expect(seen.header("X-Plain") == "kept")
        }
    }

    @Test func sameOriginRedirectKeepsCredentials() async throws {
        let server = try await TestServer.get()
        let marker = "m=\(UUID().uuidString)"
        let seen = try #require(try await finalHeaders(redirect(from: server.httpBase, to: "/headers?\(marker)"),
                                                       session: [HTTPHeader("Authorization", "Bearer s3cret")],
                                                       server: server, marker: marker))
        #expect(seen.header("Authorization") == "Bearer s3cret")
    }

    @Test func trustedFollowsToOtherHostsButNeverFromHTTPSToHTTP() async throws {
        let server = try await TestServer.get()
        let creds = [HTTPHeader("Authorization", "Bearer s3cret")]
        let m1 = "m=\(UUID().uuidString)"
        let other = "http://localhost:\(server.httpPort)/headers?\(m1)"
        let kept = try #require(try await finalHeaders(redirect(from: server.httpBase, to: other), session: creds,
                                                       trusted: true, server: server, marker: m1))
        #expect(kept.header("Authorization") == "Bearer s3cret")
        // https://localhost → http://localhost: same host, downgraded scheme.
        for trusted in [false, true] {
            let m2 = "m=\(UUID().uuidString)"
            let down = "http://localhost:\(server.httpPort)/headers?\(m2)"
            let seen = try #require(try await finalHeaders(redirect(from: server.httpsBase, to: down), request: creds,
                                                           session: creds, trusted: trusted, server: server, marker: m2))
            #expect(seen.header("Authorization") == nil)
        }
    }

    @Test func delegateCanPutCredentialsBackExplicitly() async throws {
        let server = try await TestServer.get()
        let marker = "m=\(UUID().uuidString)"
        let recorder = Recorder()
        recorder.redirectDecision = { r in
            var r = r
            r.setValue("Bearer chosen", forHTTPHeaderField: "Authorization")
            return r
        }
        let s = TransferSession(configuration: ephemeralConfig(), delegate: recorder)
        defer { s.invalidateAndCancel() }
        let start = redirect(from: server.httpBase, to: "http://localhost:\(server.httpPort)/headers?\(marker)")
        s.dataTask(with: TransferRequest(url: url(start), headers: [HTTPHeader("Authorization", "Bearer s3cret")])).resume()
        try await recorder.waitForCompletion()
        let seen = try #require(server.stats.requests.last { $0.path.contains(marker) })
        #expect(seen.header("Authorization") == "Bearer chosen")
    }

    static let smuggling: [HTTPHeader] = [
        HTTPHeader("X-A", "1\r\nX-Evil: 2"), HTTPHeader("X-A", "1\nX-Evil: 2"), HTTPHeader("X-A", "1\u{0}2"),
        HTTPHeader("Bad Name", "v"), HTTPHeader("", "v"), HTTPHeader("X:Y", "v"), HTTPHeader("Ünicode", "v"),
    ]

    @Test(arguments: smuggling) func badHeaderLinesAreRefusedWithATypedError(_ h: HTTPHeader) async throws {
        let server = try await TestServer.get()
        for (request, session) in [([h], [HTTPHeader]()), ([], [h])] {
            let s = TransferSession(configuration: ephemeralConfig { $0.httpAdditionalHeaders = session })
            defer { s.invalidateAndCancel() }
            let marker = "m=\(UUID().uuidString)"
            do {
                _ = try await s.data(for: TransferRequest(url: url("\(server.httpBase)/headers?\(marker)"), headers: request))
                Issue.record("a bad header line was accepted: \(h)")
            } catch {
                #expect(error.code == .invalidRequest)
                #expect(!error.message.contains("X-Evil"))
            }
            #expect(!server.stats.requests.contains { $0.path.contains(marker) })
        }
    }

    @Test func unsolicitedPartialContentIsATypedError() async throws {
        let server = try await TestServer.get()
        let s = TransferSession(configuration: ephemeralConfig())
        defer { s.invalidateAndCancel() }
        do {
            _ = try await s.download(for: TransferRequest(url: url("\(server.httpBase)/status/206?size=3000")))
            Issue.record("a 206 without Range was saved as a complete file")
        } catch {
            #expect(error.code == .badServerResponse)
        }
    }

    /// Values a library caller may pass that used to trap on Double→Int conversions.
    @Test func extremeConfigurationValuesDoNotTrap() async throws {
        let server = try await TestServer.get()
        let s = TransferSession(configuration: ephemeralConfig {
            $0.timeoutIntervalForRequest = 1e26
            $0.timeoutIntervalForResource = .infinity
            $0.httpMaximumConnectionsPerHost = .max
        })
        defer { s.invalidateAndCancel() }
        let (data, response) = try await s.data(for: TransferRequest(url: url("\(server.httpBase)/bytes/100"), timeoutInterval: .nan))
        #expect(response.statusCode == 200 && data.count == 100)
    }
}
