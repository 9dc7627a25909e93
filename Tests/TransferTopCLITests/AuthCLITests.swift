import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI

/// SPEC S12 through the real binary: `-u` with Basic and Digest, a wrong password, the
/// credential staying with its origin across a redirect, and never reaching an export, the
/// log or the state directory.
@Suite struct AuthCLITests {
    static let password = AuthRoutes.password

    func everything(under dir: String) -> String {
        var text = ""
        let files = FileManager.default.enumerator(atPath: dir)
        while let name = files?.nextObject() as? String {
            if let d = FileManager.default.contents(atPath: dir + "/" + name) { text += String(decoding: d, as: UTF8.self) }
        }
        return text
    }

    @Test(arguments: [("basic", "--basic"), ("digest", "--digest")])
    func userOptionAnswersTheServer(route: String, flag: String) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"]
        let r = try await Run.binary(["-o", dir + "/out", "-u", "alice:\(Self.password)", flag, "--csv", dir + "/m.csv",
                                      "--har", dir + "/m.har", "--log-file", dir + "/log.txt", "--log-level", "trace", "--trace",
                                      "\(server.httpBase)/\(route)"], environment: env)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let saved = everything(under: dir + "/out")
        #expect(saved.lowercased().contains("authorization"))
        // The password is nowhere: not in the exports, the log, the state directory, the output.
        for file in ["m.csv", "m.har", "log.txt"] {
            let text = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            #expect(!text.contains(Self.password), "\(file)")
            #expect(!text.contains("YWxpY2U6"), "\(file) holds a Basic token")  // base64 of "alice:"
        }
        #expect(!everything(under: dir + "/state").contains(Self.password))
        #expect(!r.stdout.contains("YWxpY2U6") && !r.stderr.contains("YWxpY2U6"))
    }

    @Test func wrongPasswordFailsCleanly() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = server.stats.requests.count
        let r = try await Run.binary(["-o", dir + "/out", "-u", "alice:wrong", "--digest", "\(server.httpBase)/digest/alice/right"],
                                     environment: ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"])
        #expect(r.status != 0 && r.status != 2, "\(r.stdout)\(r.stderr)")
        #expect((r.stdout + r.stderr).contains("401"), "\(r.stdout)\(r.stderr)")
        // One challenge answered once (libcurl's probe, its answer): no loop.
        #expect(server.stats.requests.count - before <= 3)
    }

    @Test func credentialsStayWithTheirOriginAcrossARedirect() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let marker = "m=\(UUID().uuidString)"
        let other = "http://localhost:\(server.httpPort)/headers?\(marker)"  // another host: another origin
        let start = "\(server.httpBase)/redirect-to?url=" + other.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let r = try await Run.binary(["-o", dir + "/out", "-u", "alice:\(Self.password)", start],
                                     environment: ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let first = try #require(server.stats.requests.last { $0.path.contains("redirect-to") })
        #expect(first.header("Authorization")?.hasPrefix("Basic ") == true)
        let hop = try #require(server.stats.requests.last { $0.path.contains(marker) })
        #expect(hop.header("Authorization") == nil)
    }

    /// An interrupted `-u` download keeps resume data, and neither it nor anything else in the
    /// state directory holds the password or its Basic token.
    @Test func resumeDataOfAUserTaskHoldsNoPassword() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let name = "auth-\(UUID().uuidString.prefix(6))"
        server.setFile(name, size: 400_000, seed: 3)
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gate = UUID().uuidString
        let run = try Run.spawn(["--no-tui", "-o", dir + "/out", "-u", "alice:\(Self.password)",
                                 "\(server.httpBase)/files/\(name)?gate=\(gate)&holdAfter=100000"],
                                environment: ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"])
        try await server.waitForGate(gate)
        try await waitFor("the first body bytes on disk") { largestFile(under: dir) > 0 }
        run.signal(SIGINT)
        let r = await run.wait()
        #expect(r.stdout.contains("kept resume data"), "\(r.stdout)\(r.stderr)")
        #expect(server.stats.requests.contains { $0.header("Authorization")?.hasPrefix("Basic ") == true })
        let state = everything(under: dir + "/state")
        #expect(!state.isEmpty)
        #expect(!state.contains(Self.password) && !state.contains("YWxpY2U6"))
        server.openGate(gate)
    }

    /// `--netrc-file` supplies the credential for its machine, as curl's.
    @Test func netrcFileAnswersTheServer() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let netrc = dir + "/netrc"
        FileManager.default.createFile(atPath: netrc, contents: Data("machine 127.0.0.1 login alice password \(Self.password)\n".utf8),
                                       attributes: [.posixPermissions: 0o600])
        let env = ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"]
        let r = try await Run.binary(["-o", dir + "/out", "--netrc-file", netrc, "\(server.httpBase)/basic"], environment: env)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let without = try await Run.binary(["-o", dir + "/out2", "\(server.httpBase)/basic"], environment: env)
        #expect(without.status != 0 && without.status != 2 && (without.stdout + without.stderr).contains("401"))
    }
}
