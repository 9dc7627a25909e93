import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI
import TransferKit

/// In the CLI: content coding as curl (raw bytes unless `--compressed`) and download
/// names from Content-Disposition as aria2 (unless `--no-content-disposition`).
@Suite struct ContentCLITests {
    func query(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

    func run(_ args: [String]) async throws -> (RunResult, String) {
        let root = try Run.tempDirectory()
        let env = ["XDG_STATE_HOME": root + "/state", "XDG_CONFIG_HOME": root + "/config"]
        let r = try await Run.binary(["--no-tui", "-o", root + "/out"] + args, environment: env)
        return (r, root)
    }

    func files(_ root: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root + "/out")) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test(arguments: ["gzip", "deflate", "brotli", "zstd"])
    func withoutCompressedTheBytesAreSavedAsSent(route: String) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let (r, root) = try await run(["\(server.httpBase)/\(route)?size=5000", "\(server.httpBase)/headers"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let saved = try Data(contentsOf: URL(fileURLWithPath: root + "/out/" + route))
        #expect(saved == Data(try #require(LoopbackServer.encodedBody(route, size: 5000))))
        let headers = try String(contentsOfFile: root + "/out/headers", encoding: .utf8)
        #expect(!headers.lowercased().contains("accept-encoding"), "\(headers)")
    }

    @Test(arguments: ["gzip", "deflate", "brotli", "zstd"])
    func compressedAsksAndSavesTheDecodedBody(route: String) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let (r, root) = try await run(["--compressed", "\(server.httpBase)/\(route)?size=5000", "\(server.httpBase)/headers"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let saved = try Data(contentsOf: URL(fileURLWithPath: root + "/out/" + route))
        #expect(saved == Data(LoopbackServer.body(size: 5000)))
        let headers = try String(contentsOfFile: root + "/out/headers", encoding: .utf8)
        #expect(headers.lowercased().contains("accept-encoding"), "\(headers)")
    }

    @Test(arguments: [
        ("attachment; filename=\"report 2026.csv\"", "report 2026.csv"),
        ("attachment; filename=\"EURO rates\"; filename*=UTF-8''%e2%82%ac%20rates.txt", "€ rates.txt"),
        ("attachment; filename=\"../../escape.txt\"", "escape.txt"),
        ("attachment; filename*=UTF-8''evil%E2%80%AEtxt.exe", "eviltxt.exe"),
        ("attachment; filename=\".bashrc\"", "bashrc"),
        ("attachment", "disposition"),
        ("attachment; filename=\"..\"", "disposition"),
    ])
    func downloadsTakeTheContentDispositionName(header: String, expected: String) async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let (r, root) = try await run(["\(server.httpBase)/disposition?size=100&value=\(query(header))"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(files(root) == [expected])
        // Nothing was written beside the output directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).allSatisfy { ["out", "state", "config"].contains($0) })
    }

    @Test func noContentDispositionKeepsTheURLName() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let header = query("attachment; filename=\"report.csv\"")
        let (r, root) = try await run(["--no-content-disposition", "\(server.httpBase)/disposition?value=\(header)"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(files(root) == ["disposition"])
    }

    /// A rerun finds the file under the name the server gave it: skipped by the default
    /// already-complete check and by --no-clobber, never saved again as `name (1)`.
    @Test func aRerunFindsTheContentDispositionName() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let header = query("attachment; filename=\"kept.bin\"")
        let link = "\(server.httpBase)/disposition?size=100&value=\(header)"
        let root = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let env = ["XDG_STATE_HOME": root + "/state", "XDG_CONFIG_HOME": root + "/config"]
        let first = try await Run.binary(["--no-tui", "-o", root + "/out", link], environment: env)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let again = try await Run.binary(["--no-tui", "--no-clobber", "-o", root + "/out", link], environment: env)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect((again.stdout + again.stderr).contains("kept.bin' exists (--no-clobber)"), "\(again.stdout)\(again.stderr)")
        #expect(files(root) == ["kept.bin"])
    }

    @Test func twoDownloadsProposingOneNameAreKeptApart() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let header = query("attachment; filename=\"same.bin\"")
        let (r, root) = try await run(["\(server.httpBase)/disposition?seed=1&value=\(header)",
                                       "\(server.httpBase)/disposition?seed=2&value=\(header)"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(files(root) == ["same (1).bin", "same.bin"])
    }
}
