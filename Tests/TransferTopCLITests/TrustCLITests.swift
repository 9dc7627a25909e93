import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI

/// SPEC S12 trust through the real binary against the loopback server's self-signed
/// identity: refused by default, accepted with `--cacert`; `--pinnedpubkey` (checked in
/// addition to the CA, as curl) accepts the right key and refuses a wrong one.
@Suite struct TrustCLITests {
    /// `sha256//` + base64 of the SHA-256 of the certificate's public key (DER), by openssl.
    func pin(of certificate: String) async throws -> String {
        let r = try await ToolRun.run("/bin/sh", ["-c", "openssl x509 -in '\(certificate)' -pubkey -noout"
            + " | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"], withStandardError: false)
        #expect(r.status == 0)
        return "sha256//" + r.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func selfSignedRefusedByDefaultAcceptedWithCACertAndTheRightPin() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"]
        let ca = dir + "/ca.pem"
        try server.writeCACertificate(to: ca)
        let target = "\(server.httpsBase)/bytes/100"
        let right = try await pin(of: ca)
        let wrong = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()

        let untrusted = try await Run.binary(["-o", dir + "/a", target], environment: env)
        #expect(untrusted.status != 0 && untrusted.status != 2)
        #expect((untrusted.stdout + untrusted.stderr).contains("certificate"), "\(untrusted.stdout)\(untrusted.stderr)")

        let trusted = try await Run.binary(["-o", dir + "/b", "--cacert", ca, target], environment: env)
        #expect(trusted.status == 0, "\(trusted.stdout)\(trusted.stderr)")

        let pinned = try await Run.binary(["-o", dir + "/c", "--cacert", ca, "--pinnedpubkey", "\(wrong);\(right)", target], environment: env)
        #expect(pinned.status == 0, "\(pinned.stdout)\(pinned.stderr)")

        let mispinned = try await Run.binary(["-o", dir + "/d", "--cacert", ca, "--pinnedpubkey", wrong, target], environment: env)
        #expect(mispinned.status != 0 && mispinned.status != 2)
        #expect(largestFile(under: dir + "/d") == 0)
    }

    @Test func clientCertificateRouteRefusedWithoutAcceptedWithCertAndKey() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"]
        let ca = dir + "/ca.pem", cert = dir + "/client.pem", key = dir + "/client.key"
        try server.writeCACertificate(to: ca)
        try server.writeClientIdentity(certificate: cert, key: key)
        let target = "\(server.clientCertificateBase)/bytes/100"

        let without = try await Run.binary(["-o", dir + "/a", "--cacert", ca, target], environment: env)
        #expect(without.status != 0 && without.status != 2, "\(without.stdout)\(without.stderr)")
        #expect(largestFile(under: dir + "/a") == 0)

        let with = try await Run.binary(["-o", dir + "/b", "--cacert", ca, "--cert", cert, "--key", key, target], environment: env)
        #expect(with.status == 0, "\(with.stdout)\(with.stderr)")
        #expect(largestFile(under: dir + "/b") == 100)
    }
}

/// `-k/--insecure` accepts the self-signed server and the exports record it per hop.
@Suite struct InsecureCLITests {
    @Test func insecureIsAcceptedAndRecordedInCSVAndHAR() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["-o", dir + "/out", "-k", "--csv", dir + "/m.csv", "--har", dir + "/m.har",
                                      "\(server.httpsBase)/bytes/10"],
                                     environment: ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let csv = try String(contentsOfFile: dir + "/m.csv", encoding: .utf8).split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let column = try #require(csv.first?.firstIndex(of: "tls_insecure"))
        #expect(csv.count == 2 && csv[1][column] == "true")
        let har = try String(contentsOfFile: dir + "/m.har", encoding: .utf8)
        #expect(har.replacingOccurrences(of: " ", with: "").contains("\"_tlsInsecure\":true"), "\(har)")
    }
}
