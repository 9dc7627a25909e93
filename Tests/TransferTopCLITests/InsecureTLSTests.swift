import Foundation
import LoopbackServer
import TestSupport
import Testing

/// Trust: `-k/--insecure` exists, as curl's, but is never silent: every
/// transaction made with it is `tls_verified=false` in CSV and `_tlsVerified: false` in HAR,
/// and without it the same self-signed server is refused.
@Suite struct InsecureTLSTests {
    @Test func insecureIsRecordedAndVerificationStaysTheDefault() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"]
        let url = "\(server.httpsBase)/bytes/100"

        let refused = try await Run.binary(["--no-tui", "-o", dir + "/a", url], environment: env)
        #expect(refused.status == 1)

        let insecure = try await Run.binary(["--no-tui", "-k", "-o", dir + "/b", "--csv", dir + "/k.csv", "--har", dir + "/k.har", url],
                                            environment: env)
        #expect(insecure.status == 0, "\(insecure.stdout)\(insecure.stderr)")
        // Line mode says so once, on stderr, before anything else (DECISIONS 110).
        let warning = "transfertop: warning: -k: TLS certificates are not verified"
        #expect(insecure.stderr.split(separator: "\n").first.map(String.init) == warning, "\(insecure.stderr)")
        #expect(insecure.stderr.components(separatedBy: warning).count == 2)
        #expect(!refused.stderr.contains("-k:") && !insecure.stdout.contains(warning))
        let rows = try CSVRead.records(String(contentsOfFile: dir + "/k.csv", encoding: .utf8))
        let column = try #require(rows.first?.firstIndex(of: "tls_verified"))
        #expect(rows.dropFirst().map { $0[column] } == ["false"])
        let har = try String(contentsOfFile: dir + "/k.har", encoding: .utf8)
        #expect(har.contains("\"_tlsVerified\":false") || har.contains("\"_tlsVerified\": false"), "\(har)")

        try server.writeCACertificate(to: dir + "/ca.pem")
        let verified = try await Run.binary(["--no-tui", "--cacert", dir + "/ca.pem", "-o", dir + "/c", "--csv", dir + "/v.csv", url],
                                            environment: env)
        #expect(verified.status == 0)
        #expect(!verified.stderr.contains(warning))
        let vrows = try CSVRead.records(String(contentsOfFile: dir + "/v.csv", encoding: .utf8))
        #expect(vrows.dropFirst().map { $0[column] } == ["true"])
    }
}
