import Foundation
import LoopbackServer
import Testing
@testable import TransferTopCLI

@Suite(.serialized) struct LineModeTests {
    @Test func usageErrorsExitTwo() throws {
        let r = try Run.binary(["--session", "weird", "http://a/"])
        #expect(r.status == 2)
        #expect(r.stderr == "transfertop: --session must be 'default' or 'ephemeral', not 'weird'\nsee 'transfertop --help'\n")
        #expect(r.stdout.isEmpty)
        let help = try Run.binary(["--help"])
        #expect(help.status == 0 && help.stdout == HelpText.text)
    }

    @Test func successfulRunPipedHasNoEscapesAndPlacesFiles() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/100000"))
        let csv = dir + "/m.csv", har = dir + "/r.har"
        let r = try Run.binary(["-o", dir, "--csv", csv, "--har", har, "\(server.httpBase)/bytes/100000?seed=3",
                                "\(server.httpBase)/redirect/2"], environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}"))
        #expect(r.stdout.contains(" running "))
        #expect(r.stdout.contains("2 task(s): 2 succeeded, 0 did not"))
        // The existing file is untouched; the new one gets " (1)".
        #expect(try String(contentsOfFile: dir + "/100000", encoding: .utf8) == "old")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/100000 (1)"))
        #expect(data == Data(LoopbackServer.body(size: 100000, seed: 3)))
        #expect(FileManager.default.fileExists(atPath: dir + "/0"))
        let rows = try CSVParserShim.parse(String(contentsOfFile: csv, encoding: .utf8))
        #expect(rows.count >= 1 + 4)  // header + 1 + 3 hops
        #expect(try String(contentsOfFile: har, encoding: .utf8).contains("\"version\""))
    }

    @Test func failuresExitOne() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Run.binary(["--no-tui", "-o", dir, "\(server.httpBase)/status/404", "\(server.httpBase)/bytes/10"],
                               environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("2 task(s): 1 succeeded, 1 did not"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/404"))
        let refused = try Run.binary(["--no-tui", "--request-timeout", "2", "-o", dir, "http://127.0.0.1:1/x"],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("failed"))
    }

    @Test func unwritableOutputDirectory() throws {
        let r = try Run.binary(["-o", "/proc/transfertop-nope", "http://127.0.0.1:1/x"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("transfertop: cannot create output directory '/proc/transfertop-nope'"))
        let file = try Run.binary(["-o", "/etc/hostname", "http://127.0.0.1:1/x"])
        #expect(file.status == 2)
        #expect(file.stderr.contains("is not a directory"))
    }

    @Test func brokenJobFileNamesLineAndField() throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "[[session]]\nkind = \"shared\"\n".write(toFile: dir + "/j.toml", atomically: true, encoding: .utf8)
        let r = try Run.binary(["--job", dir + "/j.toml"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("j.toml:2: field 'kind': must be \"default\" or \"ephemeral\""))
    }

    @Test func noColorAndInputFile() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# list\n\(server.httpBase)/bytes/5\n".write(toFile: dir + "/list", atomically: true, encoding: .utf8)
        let r = try Run.binary(["-i", dir + "/list", "-o", dir], environment: ["NO_COLOR": "1", "XDG_STATE_HOME": dir + "/s"])
        #expect(r.status == 0)
        #expect(!r.stdout.contains("\u{1B}"))
        #expect(FileManager.default.fileExists(atPath: dir + "/5"))
    }
}

import TransferKit
enum CSVParserShim {
    static func parse(_ text: String) throws -> [[String]] { try CSVParser.parse(text) }
}

@Suite(.serialized) struct InterruptTests {
    /// Ctrl-C mid-download keeps resume data; the same command again finishes byte-exact
    /// with a Range request.
    @Test func interruptThenRerunCompletesByteExact() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let size = 1_200_000
        server.setFile("big.bin", size: size, seed: 9)
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state"]
        let args = ["-o", dir + "/out", "\(server.httpBase)/files/big.bin?rate=400000"]
        let first = try Run.spawn(args, environment: env)
        // Signal once part of the body has been sent (not after a fixed time: under load the
        // process may not have installed its handler yet, or may already be done).
        let deadline = Date().addingTimeInterval(60)
        while server.stats.bytesWritten < 300_000, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        first.signal(SIGINT)
        let r1 = first.wait()
        #expect(r1.status == 1, "\(r1.stdout)\(r1.stderr)")
        #expect(r1.stdout.contains("cancelled"))
        #expect(r1.stdout.contains("interrupted: 1 download(s) kept resume data"), "\(r1.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/big.bin"))
        let saved = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/resume")) ?? []
        #expect(saved.count == 1)

        server.resetStats()
        let r2 = try Run.binary(args, environment: env)
        #expect(r2.status == 0, "\(r2.stdout)\(r2.stderr)")
        #expect(r2.stdout.contains("resuming"))
        #expect(server.stats.requests.contains { $0.header("Range") != nil })
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/big.bin"))
        #expect(data == Data(LoopbackServer.body(size: size, seed: 9)))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/resume")) ?? []).isEmpty)
    }
}
