import Foundation
import LoopbackServer
import TestSupport
import Testing

/// Trust: `--pinnedpubkey` adds a public-key pin to verification, never
/// replaces it. The pin of the loopback server's key is computed here with the openssl CLI,
/// as a user would (`openssl x509 -pubkey | openssl pkey -pubin -outform der | sha256`).
@Suite struct PinningCLITests {
    static func pin(of pem: String, dir: String) async throws -> String {
        try pem.write(toFile: dir + "/server.pem", atomically: true, encoding: .utf8)
        let script = "openssl x509 -in '\(dir)/server.pem' -pubkey -noout | openssl pkey -pubin -outform der"
            + " | openssl dgst -sha256 -binary | base64"
        let out = try await offPool { try ToolRun.runBlocking("/bin/sh", ["-c", script], withStandardError: false).output }
        return "sha256//" + out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theRightPinPassesAWrongPinFailsAndAPinNeverReplacesVerification() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"]
        try server.writeCACertificate(to: dir + "/ca.pem")
        let right = try await Self.pin(of: LoopbackServer.caCertificatePEM, dir: dir)
        let wrong = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let url = "\(server.httpsBase)/bytes/100"

        let ok = try await Run.binary(["--no-tui", "--cacert", dir + "/ca.pem", "--pinnedpubkey", "\(wrong);\(right)",
                                       "-o", dir + "/a", url], environment: env)
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")

        let refused = try await Run.binary(["--no-tui", "--cacert", dir + "/ca.pem", "--pinnedpubkey", wrong,
                                            "-o", dir + "/b", url], environment: env)
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("the server's public key does not match the pinned public key"), "\(refused.stdout)")
        #expect(!refused.stdout.contains("not trusted"), "a pin mismatch is not a chain problem: \(refused.stdout)")

        // The right pin without the CA: the chain is still verified, and fails.
        let unverified = try await Run.binary(["--no-tui", "--pinnedpubkey", right, "-o", dir + "/c", url], environment: env)
        #expect(unverified.status == 1, "\(unverified.stdout)")
        #expect(unverified.stdout.contains("certificate is not trusted"), "\(unverified.stdout)")
    }
}
