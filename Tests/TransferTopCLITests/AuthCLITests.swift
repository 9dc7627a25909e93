import Foundation
import LoopbackServer
import TestSupport
import Testing

/// Authentication through the real binary, with a password that is in no URL (`/auth/basic` and
/// `/auth/digest` check the server's own user and password): it never reaches an export, the
/// log (at trace level, with `--trace`), the state directory, the terminal or resume data.
@Suite struct AuthCLITests {
    static let token = Data("\(AuthRoutes.user):".utf8).base64EncodedString().dropLast(2)  // a Basic token's start

    func everything(under dir: String) -> String {
        var text = ""
        let files = FileManager.default.enumerator(atPath: dir)
        while let name = files?.nextObject() as? String {
            if let d = FileManager.default.contents(atPath: dir + "/" + name) { text += String(decoding: d, as: UTF8.self) }
        }
        return text
    }

    func env(_ dir: String) -> [String: String] { ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"] }

    @Test(arguments: ["basic", "digest"])
    func thePasswordReachesNoFileAndNoOutput(scheme: String) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "-o", dir + "/out", "-u", "\(AuthRoutes.user):\(AuthRoutes.password)", "--\(scheme)",
                                      "--csv", dir + "/m.csv", "--har", dir + "/m.har", "--log-file", dir + "/log.txt",
                                      "--log-level", "trace", "--trace", "\(server.httpBase)/auth/\(scheme)"], environment: env(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(everything(under: dir + "/out") == "authenticated as \(AuthRoutes.user)\n")
        for file in ["m.csv", "m.har", "log.txt"] {
            let text = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            #expect(!text.isEmpty && !text.contains(AuthRoutes.password), "\(file)")
            #expect(!text.contains(Self.token), "\(file) holds a Basic token")
        }
        #expect(!everything(under: dir + "/state").contains(AuthRoutes.password))
        #expect(!(r.stdout + r.stderr).contains(AuthRoutes.password) && !(r.stdout + r.stderr).contains(Self.token))
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
        // An hour of idle time: a loaded suite can hold this test's steps past the 60 s default.
        let run = try Run.spawn(["--no-tui", "--request-timeout", "3600", "-o", dir + "/out", "-u", "\(AuthRoutes.user):\(AuthRoutes.password)",
                                 "\(server.httpBase)/files/\(name)?gate=\(gate)&holdAfter=100000"], environment: env(dir))
        try await server.waitForGate(gate)
        try await waitFor("the first body bytes on disk") { largestFile(under: dir + "/out") > 0 }
        run.signal(SIGINT)
        let r = await run.wait()
        server.openGate(gate)
        #expect(r.stdout.contains("kept resume data"), "\(r.stdout)\(r.stderr)")
        #expect(server.stats.requests.contains { $0.header("Authorization")?.hasPrefix("Basic ") == true })
        let state = everything(under: dir + "/state")
        #expect(!state.isEmpty)
        #expect(!state.contains(AuthRoutes.password) && !state.contains(Self.token))
    }

    /// DECISIONS 112: once parsed, the `-u` password is gone from /proc/PID/cmdline for the
    /// rest of the run (curl's cleanarg). Read while the request is held at a server gate.
    @Test(arguments: [["-u"], ["--user"], []])
    func thePasswordLeavesTheVisibleCommandLine(_ spelling: [String]) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let secret = "pw-\(UUID().uuidString.prefix(8))"
        let user = spelling.isEmpty ? ["--user=al:\(secret)"] : spelling + ["al:\(secret)"]
        let gate = UUID().uuidString
        // An hour of idle time: the cmdline is read once the test runs again after the gate, which
        // a loaded suite once held past the 60 s default (the run had ended: a zombie's is empty).
        let run = try Run.spawn(["--no-tui", "--request-timeout", "3600", "-o", dir + "/out"] + user + ["\(server.httpBase)/bytes/10?gate=\(gate)"],
                                environment: env(dir))
        try await server.waitForGate(gate)
        let cmdline = String(decoding: FileManager.default.contents(atPath: "/proc/\(run.pid)/cmdline") ?? Data(), as: UTF8.self)
        server.openGate(gate)
        let r = await run.wait()
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(cmdline.contains("al:") && cmdline.contains("/bytes/10"), "\(cmdline)")
        #expect(!cmdline.contains(secret), "\(cmdline)")
    }
}
