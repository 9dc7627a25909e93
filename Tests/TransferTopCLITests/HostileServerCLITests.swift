import CTestSupport
import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI
import TransferKit
@testable import TransferTopRun

/// The command line against servers that break HTTP (`HostileCase`), decompression bombs and
/// redirect loops: each failure names the server's fault with the same words in line mode,
/// CSV and HAR, exits 1, and keeps no file.
@Suite struct HostileServerCLITests {
    static let server = Result {
        try HostileServer(HostileCase.routes.merging([
            "/zstd-bomb": HostileServer.zstdBomb(blocks: 4000),
            "/loop": .init("HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n"),
            // An ETag with a bare CR in it, and a body cut short past the small-body buffer:
            // the partial file and its resume data are kept.
            "/etag-cr": .init(Array(("HTTP/1.1 200 OK\r\nContent-Length: 400000\r\nAccept-Ranges: bytes\r\n"
                                     + "ETag: \"e1\rX-Injected: 1\"\r\n\r\n").utf8), repeating: [0x61], count: 200_000),
        ]) { a, _ in a })
    }

    @Test func everyHostileServerIsNamedInLinesCSVAndHAR() async throws {
        let server = try Self.server.get()
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let csv = dir + "/m.csv", har = dir + "/m.har"
        let urls = HostileCase.all.map { server.base + $0.path }
        let r = try await Run.binary(["--no-tui", "-o", dir + "/out", "--request-timeout", "20", "--csv", csv, "--har", har] + urls,
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let records = try CSVRead.records(String(contentsOfFile: csv, encoding: .utf8))
        let rows = records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(records[0], $0)) }
        let harText = try String(contentsOfFile: har, encoding: .utf8)
        for hostile in HostileCase.all {
            let url = server.base + hostile.path
            let lines = r.stdout.split(separator: "\n").filter { $0.contains(" \(url) ") }
            guard let words = hostile.words else {
                #expect(lines.contains { $0.contains(" completed ok ") }, "\(hostile.path): \(lines)")
                continue
            }
            #expect(lines.contains { $0.contains(" completed error ") && $0.contains("error: the server") && $0.contains(words) },
                    "\(hostile.path): \(lines)")
            let errors = rows.filter { $0["url"] == url }.compactMap { $0["error"] }
            #expect(errors.contains { $0.contains(words) }, "\(hostile.path) CSV: \(errors)")
            #expect(harText.contains(words), "\(hostile.path) not in the HAR")
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: dir + "/out")
        #expect(kept == ["long-body"], "\(kept)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/long-body")) == Data("he".utf8))
    }

    /// A validator the server sent with a CR in it is never played back (If-Range would carry
    /// a second header line of the server's choosing): it is no validator, so the cut download
    /// keeps no resume data and the rerun starts again from 0 without a Range.
    @Test func aValidatorWithALineBreakIsNotSentBackOnARerun() async throws {
        let server = try Self.server.get()
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state"]
        let args = ["--no-tui", "-o", dir + "/out", server.base + "/etag-cr?run=" + UUID().uuidString]
        let first = try await Run.binary(args, environment: env)
        #expect(first.status == 1, "\(first.stdout)\(first.stderr)")
        let resume = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/resume")) ?? []
        #expect(!resume.contains { $0.hasSuffix(".resume") }, "\(resume)")
        let heads = server.requestHeads.count
        let rerun = try await Run.binary(args, environment: env)
        #expect(rerun.status == 1, "\(rerun.stdout)\(rerun.stderr)")
        let sent = server.requestHeads.dropFirst(heads)
        #expect(!sent.isEmpty)
        for head in sent {
            let text = String(decoding: head, as: UTF8.self)
            #expect(!text.contains("X-Injected") && !text.contains("If-Range") && !text.contains("Range:"), "\(text)")
        }
    }

    @Test func aCompressedBombStopsWithNoFileUnlessTheSizeIsBoundedExplicitly() async throws {
        let server = try Self.server.get()
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state"]
        let bomb = try await Run.binary(["--no-tui", "--compressed", "-o", dir + "/out", server.base + "/zstd-bomb"], environment: env)
        #expect(bomb.status == 1, "\(bomb.stdout)\(bomb.stderr)")
        #expect(bomb.stdout.contains("a decompression bomb?") && bomb.stdout.contains("--max-filesize"), "\(bomb.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").isEmpty)
        let resume = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/resume")) ?? []
        #expect(!resume.contains { $0.hasSuffix(".resume") }, "a stopped bomb is not resume data: \(resume)")

        let bounded = try await Run.binary(["--no-tui", "--compressed", "--max-filesize", "12M", "-o", dir + "/out",
                                            server.base + "/zstd-bomb"], environment: env)
        #expect(bounded.status == 1, "\(bounded.stdout)\(bounded.stderr)")
        #expect(bounded.stdout.contains("past the maximum of \(12 << 20) bytes (maximum file size exceeded)"), "\(bounded.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").isEmpty)
    }

    /// The bomb of the report: gzip -9 of 256 MiB of zeros (GNU gzip, 1,028:1), decoded with
    /// --compressed, stops a few MiB past the guard's 10 MiB allowance, not at its end.
    @Test func aGzipBombStopsSoonAfterTenMiB() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let made = try await ToolRun.run("/bin/sh", ["-c", "head -c 268435456 /dev/zero | gzip -9 -n > '\(dir)/bomb.gz'"])
        #expect(made.status == 0, "\(made.output)")
        let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/bomb.gz")))
        let head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(body.count)\r\n\r\n"
        let server = try HostileServer(["/bomb.gz": .init(Array(head.utf8) + body)])
        defer { server.stop() }
        let r = try await Run.binary(["--no-tui", "--compressed", "-o", dir + "/out", server.base + "/bomb.gz"],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let decoded = r.stdout.firstMatch(of: /decoded to (\d+) bytes/).flatMap { Int($0.1) }
        // One 16 KiB read of this body decodes to 16 MiB: the guard sees it within two.
        #expect(decoded.map { $0 > 10 << 20 && $0 < 48 << 20 } == true, "\(r.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").isEmpty)
    }

    @Test func maxFilesizeRefusesAnAnnouncedLengthBeforeTheBody() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "--max-filesize", "1K", "-o", dir + "/out", "\(server.httpBase)/bytes/5000"],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("announced 5000 bytes, more than the maximum of 1024"), "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/5000"))
        let fits = try await Run.binary(["--no-tui", "--max-filesize", "5000", "-o", dir + "/out", "\(server.httpBase)/bytes/5000"],
                                        environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(fits.status == 0, "\(fits.stdout)\(fits.stderr)")
        #expect(fileSize(dir + "/out/5000") == 5000)
    }

    @Test(arguments: [("2", "more than 2 redirects", 3), ("0", "no redirect may be followed", 1)])
    func maxRedirsLimitsTheChain(_ value: String, _ words: String, _ requests: Int) async throws {
        let server = try Self.server.get()
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = server.requestedPaths.filter { $0 == "/loop" }.count
        let r = try await Run.binary(["--no-tui", "--max-redirs", value, "-o", dir + "/out", server.base + "/loop"],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains(words), "\(r.stdout)")
        // Other runs of this test share the server: at least this run's requests arrived.
        #expect(server.requestedPaths.filter { $0 == "/loop" }.count - before >= requests)
    }

    @Test(arguments: [
        (["--max-redirs", "-2"], "--max-redirs must be a whole number from -1 to"),
        (["--max-redirs", "many"], "--max-redirs must be a whole number from -1 to"),
        (["--max-redirs", "1.5"], "--max-redirs must be a whole number from -1 to"),
        (["--max-filesize", "-1"], "--max-filesize must be a size from"),
        (["--max-filesize", "10X"], "--max-filesize must be a size from"),
        (["--max-filesize", "99999999999999G"], "--max-filesize must be a size from"),
    ])
    func outOfRangeLimitsAreUsageErrors(_ args: [String], _ words: String) async throws {
        let r = try await Run.binary(["--no-tui"] + args + ["http://127.0.0.1:9/x"])
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("transfertop: " + words) == true, "\(r.stderr)")
        #expect(lines.dropFirst() == ["see 'transfertop --help'"], "\(r.stderr)")
    }

    @Test func theLimitsReachTheConfiguration() throws {
        func configuration(_ args: [String]) throws -> TransferConfiguration {
            guard case .run(let o) = try TransferTopCommand.command(from: args + ["http://a/"]) else {
                throw TestFailure("\(args) did not parse to a run")
            }
            return try RunPlan.from(o, urls: [URL(string: "http://a/")!], outputDirectory: "/tmp").sessions[0].configuration
        }
        let plain = try configuration([])
        #expect(plain.httpMaximumRedirects == 16 && plain.maximumContentLength == nil && plain.maximumDecodedRatio == 500)
        #expect(try configuration(["--max-redirs", "-1"]).httpMaximumRedirects == nil)
        #expect(try configuration(["--max-redirs", "0"]).httpMaximumRedirects == 0)
        let bounded = try configuration(["--max-filesize", "2G"])
        #expect(bounded.maximumContentLength == 2 << 30 && bounded.maximumDecodedRatio == nil)
        let unbounded = try configuration(["--max-filesize", "0"])
        #expect(unbounded.maximumContentLength == nil && unbounded.maximumDecodedRatio == nil)
    }
}

/// A full disk while writing a decoded body: the partial cannot be resumed, so it is removed
/// and the message does not promise a continuation.
@Suite struct DecodedDiskFullTests {
    @Test func aFailedWriteOfADecodedBodySaysThePartialWasRemoved() async throws {
        // 2 MiB of zeros as zstd (16 blocks): under the bomb guard's 10 MiB allowance.
        let gate = HostileServer.Gate()
        var reply = HostileServer.zstdBomb(blocks: 16)
        reply.gate = gate
        let server = try HostileServer(["/decoded": reply])
        defer { server.stop() }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Held at the gate until this task runs again: a long idle timeout (docs/decisions/167).
        let run = try Run.spawn(["--no-tui", "--compressed", "--request-timeout", "3600", "-o", dir + "/out",
                                 server.base + "/decoded"],
                                environment: ["XDG_STATE_HOME": dir + "/state"])
        try await gate.waitForArrival()
        #expect(tt_set_file_size_limit(run.pid, 500 * 1024) == 0)
        gate.open()
        let limited = await run.wait()
        #expect(limited.status == 1, "\(limited.stdout)\(limited.stderr)")
        #expect(limited.stdout.contains("File too large after"), "\(limited.stdout)")
        #expect(limited.stdout.contains("the partial file was removed"), "\(limited.stdout)")
        #expect(!limited.stdout.contains("run again to continue"), "\(limited.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").isEmpty)
    }
}
