import Foundation
import LoopbackServer
import TestSupport
import Testing

/// The encoded routes send real encodings: tools we did not write decode them back to the
/// pattern (curl `--compressed` for all four; GNU gzip, zstd and Python's zlib for theirs).
@Suite struct ContentCodingRouteTests {
    func fetch(_ url: String, compressed: Bool, into dir: String) async throws -> Data {
        let file = dir + "/" + UUID().uuidString
        let r = try await ToolRun.run("/usr/bin/curl", ["-sS", "--max-time", "300", "-o", file]
                                        + (compressed ? ["--compressed"] : []) + [url])
        #expect(r.status == 0, "\(r.output)")
        return try Data(contentsOf: URL(fileURLWithPath: file))
    }

    @Test(arguments: ["gzip", "deflate", "brotli", "zstd"], [0, 70_000, 300_000])
    func curlDecodesEachCoding(route: String, size: Int) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try privateDirectory("coding")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = "\(server.httpBase)/\(route)?size=\(size)&seed=5"
        #expect(try await fetch(url, compressed: true, into: dir) == Data(LoopbackServer.body(size: size, seed: 5)))
        let raw = try await fetch(url, compressed: false, into: dir)
        #expect(raw == Data(try #require(LoopbackServer.encodedBody(route, size: size, seed: 5))))
    }

    @Test(arguments: [("gzip", ["/usr/bin/gzip", "-dc"]), ("zstd", ["/usr/bin/zstd", "-dcq"]),
                      ("deflate", ["/usr/bin/env", "python3", "-c", "import sys,zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1],'rb').read()))"])])
    func theFormatsOwnToolsDecodeThem(route: String, tool: [String]) async throws {
        let dir = try privateDirectory("coding")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let encoded = dir + "/body"
        try Data(try #require(LoopbackServer.encodedBody(route, size: 200_000, seed: 9))).write(to: URL(fileURLWithPath: encoded))
        let out = dir + "/out"
        let script = tool.map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ") + " '\(encoded)' > '\(out)'"
        let r = try await ToolRun.run("/bin/sh", ["-c", script])
        #expect(r.status == 0, "\(r.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(LoopbackServer.body(size: 200_000, seed: 9)))
    }

    @Test func theGzipFixtureIsCompressedForReal() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try privateDirectory("coding")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = "\(server.httpBase)/gzip?fixture=1"
        let raw = try await fetch(url, compressed: false, into: dir)
        #expect(raw.count < LoopbackServer.gzipFixtureText.utf8.count / 5)
        #expect(try await fetch(url, compressed: true, into: dir) == Data(LoopbackServer.gzipFixtureText.utf8))
    }
}
