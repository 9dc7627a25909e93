import Foundation
import LoopbackServer
import TestSupport
import Testing

/// Trust through the real binary: a server that requires a client certificate
/// refuses a run without `--cert`, accepts one with `--cert`/`--key` (or both in one file);
/// a self-signed server refused by default leaves one record, the refused hop (the trust
/// probe of DECISIONS 91 leaves none). Pins and `--cacert`: PinningCLITests, InsecureTLSTests.
@Suite struct TrustCLITests {
    func env(_ dir: String) -> [String: String] { ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"] }

    @Test func aServerRequiringAClientCertificateRefusesWithoutAndAcceptsWithCertAndKey() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ca = dir + "/ca.pem", cert = dir + "/client.pem", key = dir + "/client.key"
        try server.writeCACertificate(to: ca)
        try server.writeClientIdentity(certificate: cert, key: key)
        let target = "\(server.clientCertificateBase)/bytes/100"

        let without = try await Run.binary(["--no-tui", "-o", dir + "/a", "--cacert", ca, target], environment: env(dir))
        #expect(without.status == 1, "\(without.stdout)\(without.stderr)")
        #expect(largestFile(under: dir + "/a") == 0)

        let with = try await Run.binary(["--no-tui", "-o", dir + "/b", "--cacert", ca, "--cert", cert, "--key", key, target],
                                        environment: env(dir))
        #expect(with.status == 0, "\(with.stdout)\(with.stderr)")
        #expect(largestFile(under: dir + "/b") == 100)

        // The certificate and its key in one file, as curl's --cert takes them.
        let both = dir + "/both.pem"
        try (String(contentsOfFile: cert, encoding: .utf8) + "\n" + String(contentsOfFile: key, encoding: .utf8))
            .write(toFile: both, atomically: true, encoding: .utf8)
        let one = try await Run.binary(["--no-tui", "-o", dir + "/c", "--cacert", ca, "--cert", both, target], environment: env(dir))
        #expect(one.status == 0, "\(one.stdout)\(one.stderr)")
        #expect(largestFile(under: dir + "/c") == 100)
    }

    @Test func aRefusedServerLeavesOneRecordWithItsReason() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "-o", dir + "/a", "--csv", dir + "/m.csv", "\(server.httpsBase)/bytes/100"],
                                     environment: env(dir))
        #expect(r.status == 1)
        #expect(r.stdout.contains("not trusted"), "\(r.stdout)")
        let rows = try CSVRead.records(String(contentsOfFile: dir + "/m.csv", encoding: .utf8))
        let error = try #require(rows.first?.firstIndex(of: "error"))
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.last?[error].contains("certificate") == true, "\(rows)")
    }
}
