import Foundation
@testable import LoopbackServer
import TestSupport
import Testing

/// `--cache` and `--cache-policy` (DECISIONS 104) across runs of the binary that
/// share a private `XDG_CACHE_HOME`. Whether a run reached the server is read from the server's
/// request log, never inferred from timing.
@Suite struct CacheCLITests {
    func env(_ dir: String) -> [String: String] {
        ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config", "XDG_DATA_HOME": dir + "/data",
         "XDG_CACHE_HOME": dir + "/cache"]
    }

    func count(_ server: LoopbackServer, _ marker: String) -> Int {
        server.stats.requests.filter { $0.path.contains(marker) }.count
    }

    func fetchTypes(_ csv: String) throws -> [String] {
        let records = try CSVRead.records(String(contentsOfFile: csv, encoding: .utf8))
        let column = try #require(records.first?.firstIndex(of: "fetch_type"))
        return records.dropFirst().map { $0[column] }
    }

    @Test func aSecondRunIsServedFromTheCacheAndAStaleOneIsRevalidated() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fresh = "\(server.httpBase)/cache?max-age=3600&etag=f&size=30000&seed=5&id=freshcli"
        let first = try await Run.binary(["--no-tui", "--cache", "--csv", dir + "/1.csv", "-o", dir + "/a", fresh], environment: env(dir))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(try fetchTypes(dir + "/1.csv") == ["network"])
        let second = try await Run.binary(["--no-tui", "--cache", "--csv", dir + "/2.csv", "-o", dir + "/b", fresh], environment: env(dir))
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(try fetchTypes(dir + "/2.csv") == ["local-cache"])
        #expect(count(server, "freshcli") == 1, "no request reached the server")
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/a/cache"))
        #expect(a == Data(LoopbackServer.body(size: 30000, seed: 5)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/b/cache")) == a)

        let stale = "\(server.httpBase)/cache?max-age=0&etag=s&size=20000&seed=6&id=stalecli"
        _ = try await Run.binary(["--no-tui", "--cache", "-o", dir + "/c", stale], environment: env(dir))
        let again = try await Run.binary(["--no-tui", "--cache", "--csv", dir + "/3.csv", "-o", dir + "/d", stale], environment: env(dir))
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(try fetchTypes(dir + "/3.csv") == ["revalidated"])
        #expect(count(server, "stalecli") == 2)
        let conditional = try #require(server.stats.requests.last { $0.path.contains("stalecli") })
        #expect(conditional.header("If-None-Match") == "\"s\"")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/d/cache")) == Data(LoopbackServer.body(size: 20000, seed: 6)))

        // Without --cache: the network, as curl.
        let plain = try await Run.binary(["--no-tui", "--csv", dir + "/4.csv", "-o", dir + "/e", fresh], environment: env(dir))
        #expect(plain.status == 0)
        #expect(try fetchTypes(dir + "/4.csv") == ["network"])
        #expect(count(server, "freshcli") == 2)
    }

    @Test func cachePolicyDontLoadFailsAMissWithoutARequest() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let u = "\(server.httpBase)/cache?max-age=3600&id=dontload"
        let r = try await Run.binary(["--no-tui", "--cache", "--cache-policy", "returnCacheDataDontLoad", "-o", dir + "/a", u],
                                     environment: env(dir))
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect((r.stdout + r.stderr).contains("not in the cache"), "\(r.stdout)\(r.stderr)")
        #expect(count(server, "dontload") == 0)
    }

    @Test func anEphemeralRunWritesNoCacheAndAnUnwritableCacheIsANote() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let u = "\(server.httpBase)/cache?max-age=3600&id=ephemeralcli"
        let r = try await Run.binary(["--no-tui", "--cache", "--session", "ephemeral", "-o", dir + "/a", u], environment: env(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/cache/transfertop"))

        // The cache directory is a file: the run succeeds, the cache stays in memory, a note says so.
        try FileManager.default.createDirectory(atPath: dir + "/blocked", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/blocked/transfertop"))
        var blocked = env(dir)
        blocked["XDG_CACHE_HOME"] = dir + "/blocked"
        let b = try await Run.binary(["--no-tui", "--cache", "-o", dir + "/b", u], environment: blocked)
        #expect(b.status == 0, "\(b.stdout)\(b.stderr)")
        #expect(b.stdout.contains("the cache is in memory only"), "\(b.stdout)")
        #expect(try String(contentsOfFile: dir + "/blocked/transfertop", encoding: .utf8) == "x")
    }
}
