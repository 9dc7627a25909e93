import Foundation
import LoopbackServer
import TestSupport
import Testing

/// In the CLI: `-u`, `--basic`/`--digest`/`--anyauth`, `--netrc-file`, against
/// the loopback server's `/auth/basic|digest/USER/PASS` (RFC 7617 / RFC 7616 MD5, qop=auth).
/// Credentials go only to the URL's own origin, and never into output, CSV or HAR.
@Suite struct AuthenticationCLITests {
    static let password = "s3cret-\(UUID().uuidString.prefix(6))"

    func env(_ dir: String) -> [String: String] { ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"] }

    @Test(arguments: [("--basic", "basic"), ("--digest", "digest"), ("--anyauth", "digest"), ("--anyauth", "basic")])
    func theRightPasswordIsAccepted(_ flag: String, _ scheme: String) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", flag, "-u", "al:\(Self.password)", "-o", dir + "/out",
                                      "\(server.httpBase)/auth/\(scheme)/al/\(Self.password)"], environment: env(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/out/\(Self.password)", encoding: .utf8) == "authenticated as al\n")
        if flag == "--digest" {
            // With --digest nothing is sent before the challenge, and only a Digest answer after
            // (the password itself never crosses the wire; here it is also in the URL's path).
            let sent = server.stats.requests.map { $0.header("Authorization") }
            #expect(sent.count == 2 && sent[0] == nil && sent[1]?.hasPrefix("Digest ") == true, "\(sent)")
        }
    }

    @Test func aWrongPasswordIsA401AndExit1WithoutEchoingIt() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "--digest", "-u", "al:wrong-\(Self.password)", "-o", dir + "/out",
                                      "\(server.httpBase)/auth/digest/al/right"], environment: env(dir))
        #expect(r.status == 1)
        #expect(r.stdout.contains("401"))
        #expect(!(r.stdout + r.stderr).contains("wrong-\(Self.password)"))
    }

    @Test func credentialsStayWithTheirOriginUnlessTrusted() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for trusted in [false, true] {
            let marker = "m=\(UUID().uuidString)"
            let other = "http://localhost:\(server.httpPort)/headers?\(marker)"  // another host: another origin
            let start = "\(server.httpBase)/redirect-to?url=" + other.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let r = try await Run.binary(["--no-tui", "-u", "al:\(Self.password)", "-o", dir + "/o\(trusted)"]
                                         + (trusted ? ["--location-trusted"] : []) + [start], environment: env(dir))
            #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
            let first = try #require(server.stats.requests.last { $0.path.hasPrefix("/redirect-to") })
            let hop = try #require(server.stats.requests.last { $0.path.contains(marker) })
            #expect(first.header("Authorization")?.hasPrefix("Basic ") == true)
            #expect((hop.header("Authorization") != nil) == trusted, "trusted \(trusted): \(hop.headers)")
        }
    }

    @Test func netrcGivesEachHostItsOwnEntryAndExportsHoldNoSecret() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "machine 127.0.0.1 login al password \(Self.password)\n".write(toFile: dir + "/netrc", atomically: true, encoding: .utf8)
        let r = try await Run.binary(["--no-tui", "--netrc-file", dir + "/netrc", "-o", dir + "/out", "--csv", dir + "/m.csv",
                                      "--har", dir + "/m.har", "\(server.httpBase)/auth/basic/al/\(Self.password)"], environment: env(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let encoded = Data("al:\(Self.password)".utf8).base64EncodedString()
        for file in ["m.csv", "m.har"] {
            let text = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            #expect(!text.contains(encoded), "\(file) holds the Basic credentials")
        }
    }

    /// `--digest --netrc-file`: the netrc password answers the Digest challenge; no Basic
    /// Authorization (the password in base64) ever reaches the server.
    @Test func digestWithNetrcNeverSendsBasic() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "machine 127.0.0.1 login al password \(Self.password)\n".write(toFile: dir + "/netrc", atomically: true, encoding: .utf8)
        let r = try await Run.binary(["--no-tui", "--digest", "--netrc-file", dir + "/netrc", "-o", dir + "/out",
                                      "\(server.httpBase)/auth/digest/al/\(Self.password)"], environment: env(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/out/\(Self.password)", encoding: .utf8) == "authenticated as al\n")
        let sent = server.stats.requests.compactMap { $0.header("Authorization") }
        #expect(!sent.isEmpty && sent.allSatisfy { $0.hasPrefix("Digest ") }, "\(sent)")
        #expect(!sent.contains { $0.lowercased().hasPrefix("basic") }, "\(sent)")
    }

    /// A netrc `default` entry matches every host; still, a redirect from the origin
    /// (127.0.0.1) to another host (localhost) carries no Authorization.
    @Test func aNetrcDefaultEntryDoesNotFollowARedirectToAnotherHost() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "default login al password \(Self.password)\n".write(toFile: dir + "/netrc", atomically: true, encoding: .utf8)
        let marker = "m=\(UUID().uuidString)"
        let other = "http://localhost:\(server.httpPort)/headers?\(marker)"
        let start = "\(server.httpBase)/redirect-to?url=" + other.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let r = try await Run.binary(["--no-tui", "--netrc-file", dir + "/netrc", "-o", dir + "/o", start], environment: env(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let first = try #require(server.stats.requests.last { $0.path.hasPrefix("/redirect-to") })
        let hop = try #require(server.stats.requests.last { $0.path.contains(marker) })
        // The origin may have it (netrc is optional there and libcurl sends Basic up front)...
        #expect(first.header("Authorization")?.hasPrefix("Basic ") == true, "\(first.headers)")
        // ...the other host never.
        #expect(hop.header("Authorization") == nil, "\(hop.headers)")
    }
}

/// `-u USER` without a password on a real terminal: asked for without echo, as curl does.
@Suite(.serialized) struct PasswordPromptTests {
    @Test func aMissingPasswordIsAskedOnTheTerminalWithoutEcho() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (binary, server, dir, tmux) = (rig.binary, rig.server, rig.dir, rig.tmux)
        let password = "typed-\(UUID().uuidString.prefix(6))"
        let command = "cd \(dir) && env TERM=xterm LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config "
            + "\(binary) --no-tui -u al -o \(dir)/out '\(server.httpBase)/auth/basic/al/\(password)'; echo TT-EXITED $?; sleep 3600"
        try await tmux.run(["new-session", "-d", "-s", "t", "-x", "160", "-y", "30", command])
        _ = try await tmux.waitFor { $0.contains("Enter host password for user 'al':") }
        try await tmux.keys("-l", password)
        try await tmux.keys("Enter")
        let screen = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(screen.contains("TT-EXITED 0"), "\(screen)")
        // The URL's path holds the password (the route's design); the prompt's line must not.
        let promptLine = screen.split(separator: "\n").first { $0.contains("Enter host password") } ?? ""
        #expect(!promptLine.contains(password), "\(screen)")
    }
}
