import Foundation
import LoopbackServer
import Testing
@testable import TransferTopCLI

/// `-H` and job-file credential headers stay with their origin across redirects,
/// through the real binary; `--location-trusted` opts in (but never from https to http).
@Suite struct CredentialRedirectTests {
    func redirect(_ server: LoopbackServer, from base: String, to target: String) -> String {
        "\(base)/redirect-to?url=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    func seen(_ server: LoopbackServer, _ marker: String) -> RequestRecord? {
        server.stats.requests.last { $0.path.contains(marker) }
    }

    @Test func commandLineAndJobHeadersStayWithTheirOrigin() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"]
        let other = "http://localhost:\(server.httpPort)/headers"  // another host: another origin
        let ca = dir + "/ca.pem"
        try server.writeCACertificate(to: ca)

        let m1 = "m1=\(UUID().uuidString)"
        let plain = try await Run.binary(["-o", dir + "/o1", "-H", "Authorization: Bearer s3cret", "-H", "Cookie: sid=s3cret",
                                    redirect(server, from: server.httpBase, to: "\(other)?\(m1)")], environment: env)
        #expect(plain.status == 0, "\(plain.stdout)\(plain.stderr)")
        let r1 = try #require(seen(server, m1))
        #expect(r1.header("Authorization") == nil && (r1.header("Cookie") ?? "").contains("s3cret") == false)

        let m2 = "m2=\(UUID().uuidString)"
        let job = dir + "/j.toml"
        let start = redirect(server, from: server.httpBase, to: "\(other)?\(m2)")
        try "[[session]]\nheaders = [\"Authorization: Bearer s3cret\"]\n[[session.task]]\nurl = \"\(start)\"\n"
            .write(toFile: job, atomically: true, encoding: .utf8)
        let fromJob = try await Run.binary(["-o", dir + "/o2", "--job", job], environment: env)
        #expect(fromJob.status == 0, "\(fromJob.stdout)\(fromJob.stderr)")
        #expect(try #require(seen(server, m2)).header("Authorization") == nil)

        let m3 = "m3=\(UUID().uuidString)"
        let trusted = try await Run.binary(["-o", dir + "/o3", "--location-trusted", "-H", "Authorization: Bearer s3cret",
                                      redirect(server, from: server.httpBase, to: "\(other)?\(m3)")], environment: env)
        #expect(trusted.status == 0, "\(trusted.stdout)\(trusted.stderr)")
        #expect(try #require(seen(server, m3)).header("Authorization") == "Bearer s3cret")

        let m4 = "m4=\(UUID().uuidString)"
        let downgrade = try await Run.binary(["-o", dir + "/o4", "--cacert", ca, "--location-trusted", "-H", "Authorization: Bearer s3cret",
                                        redirect(server, from: server.httpsBase, to: "http://localhost:\(server.httpPort)/headers?\(m4)")],
                                       environment: env)
        #expect(downgrade.status == 0, "\(downgrade.stdout)\(downgrade.stderr)")
        #expect(try #require(seen(server, m4)).header("Authorization") == nil)
    }
}
