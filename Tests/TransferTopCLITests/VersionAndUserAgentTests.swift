import Foundation
import LoopbackServer
import Testing
import TransferKit
@testable import TransferTopCLI
@testable import TransferTopRun

/// `--version` and the User-Agent: both carry the version stamped at build time
/// and the libcurl actually loaded.
@Suite struct VersionAndUserAgentTests {
    /// What the VersionStamp plugin should have stamped: `git describe` of this checkout.
    /// "-dirty" is left out of the comparison: files may change between build and test.
    static func describe() async throws -> String? {
        let r = try await Run.spawn(["-C", Golden.packageRoot.path, "describe", "--tags", "--always", "--dirty"],
                                    executable: "/usr/bin/git").wait()
        return r.status == 0 ? r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    static func clean(_ v: String) -> String { v.hasSuffix("-dirty") ? String(v.dropLast(6)) : v }

    @Test func versionLine() async throws {
        let r = try await Run.binary(["--version"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let line = r.stdout.trimmingCharacters(in: .newlines)
        let m = try #require(line.wholeMatch(of: /transfertop ([A-Za-z0-9._+-]+) \(libcurl (\d+\.\d+\.\d+)\)/), "\(line)")
        #expect(String(m.2) == Libcurl.version)
        // The tests run in a git checkout (CI clones): the stamp is its commit or tag.
        let expected = try #require(try await Self.describe(), "not a git checkout")
        // (After a commit, `swift test --skip-build` runs a binary stamped with the commit before.)
        #expect(Self.clean(String(m.1)) == Self.clean(expected))
    }

    /// The headers the loopback server's `/headers` route saw, from the file the run saved.
    func headersSent(_ extra: [String]) async throws -> [[String]] {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "-o", dir] + extra + ["\(server.httpBase)/headers"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/headers"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(json["headers"] as? [[String]])
    }

    func userAgents(_ headers: [[String]]) -> [String] {
        headers.filter { $0.first?.lowercased() == "user-agent" }.map { $0[1] }
    }

    @Test func defaultUserAgentArrives() async throws {
        let sent = userAgents(try await headersSent([]))
        #expect(sent == [VersionInfo.userAgent])
        #expect(sent.first?.wholeMatch(of: /transfertop\/[A-Za-z0-9._+-]+ libcurl\/\d+\.\d+\.\d+/) != nil, "\(sent)")
    }

    @Test func dashAReplacesItAndEmptySendsNone() async throws {
        #expect(userAgents(try await headersSent(["-A", "probe/2.0 (test)"])) == ["probe/2.0 (test)"])
        #expect(userAgents(try await headersSent(["--user-agent=other/1"])) == ["other/1"])
        #expect(userAgents(try await headersSent(["-A", ""])) == [])
    }

    @Test func aUserAgentHeaderWins() async throws {
        #expect(userAgents(try await headersSent(["-H", "User-Agent: mine/1"])) == ["mine/1"])
        #expect(userAgents(try await headersSent(["-A", "ignored", "-H", "user-agent: mine/2"])) == ["mine/2"])
    }
}
