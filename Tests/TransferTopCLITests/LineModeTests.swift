import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI

@Suite(.serialized) struct LineModeTests {
    @Test func usageErrorsExitTwo() async throws {
        let r = try await Run.binary(["--session", "weird", "http://a/"])
        #expect(r.status == 2)
        #expect(r.stderr == "transfertop: --session must be 'default' or 'ephemeral', not 'weird'\nsee 'transfertop --help'\n")
        #expect(r.stdout.isEmpty)
        let help = try await Run.binary(["--help"], environment: ["COLUMNS": "80"])
        #expect(help.status == 0 && help.stdout == TransferTopCommand.helpMessage(columns: 80) + "\n")
    }

    @Test func successfulRunPipedHasNoEscapesAndPlacesFiles() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/100000"))
        let csv = dir + "/m.csv", har = dir + "/r.har"
        let r = try await Run.binary(["-o", dir, "--csv", csv, "--har", har, "\(server.httpBase)/bytes/100000?seed=3",
                                "\(server.httpBase)/redirect/2"], environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}"))
        #expect(r.stdout.contains(" running "))
        #expect(r.stdout.contains("2 tasks: 2 succeeded, 0 did not"))
        // The existing file is untouched; the new one gets " (1)".
        #expect(try String(contentsOfFile: dir + "/100000", encoding: .utf8) == "old")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/100000 (1)"))
        #expect(data == Data(LoopbackServer.body(size: 100000, seed: 3)))
        #expect(FileManager.default.fileExists(atPath: dir + "/0"))
        let rows = try CSVRead.records(String(contentsOfFile: csv, encoding: .utf8))
        #expect(rows.count >= 1 + 4)  // header + 1 + 3 hops
        // HAR entries carry the request heads as sent, and the file is HAR 1.2.
        let harJSON = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any]
        let entries = (harJSON?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        let sent = ((entries.first?["request"] as? [String: Any])?["headers"] as? [[String: String]] ?? []).compactMap { $0["name"] }
        #expect(sent.contains("Host") && sent.contains("User-Agent") && sent.contains("Accept"), "\(sent)")
        let python = try RequiredTool.python(importing: "jsonschema")
        let schema = try await ObservabilityTests.tool("/bin/sh", ["-c",
            "'\(python)' '\(ObservabilityTests.root)/scripts/har-validate.py' '\(ObservabilityTests.root)/scripts/har-1.2.schema.json' '\(har)'"])
        #expect(schema.status == 0, "\(schema.output)")
    }

    @Test func failuresExitOne() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "-o", dir, "\(server.httpBase)/status/404", "\(server.httpBase)/bytes/10"],
                               environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("2 tasks: 1 succeeded, 1 did not"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/404"))
        let refused = try await Run.binary(["--no-tui", "--request-timeout", "2", "-o", dir, "http://127.0.0.1:1/x"],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("completed error"))
    }

    @Test func unwritableOutputDirectory() async throws {
        let r = try await Run.binary(["-o", "/proc/transfertop-nope", "http://127.0.0.1:1/x"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("transfertop: cannot create output directory '/proc/transfertop-nope'"))
        let file = try await Run.binary(["-o", "/etc/hostname", "http://127.0.0.1:1/x"])
        #expect(file.status == 2)
        #expect(file.stderr.contains("is not a directory"))
    }

    @Test func brokenJobFileNamesLineAndField() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "[[session]]\nkind = \"shared\"\n".write(toFile: dir + "/j.toml", atomically: true, encoding: .utf8)
        let r = try await Run.binary(["--job", dir + "/j.toml"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("j.toml:2: field 'kind': must be \"default\" or \"ephemeral\""))
    }

    @Test func noColorAndInputFile() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# list\n\(server.httpBase)/bytes/5\n".write(toFile: dir + "/list", atomically: true, encoding: .utf8)
        let r = try await Run.binary(["-i", dir + "/list", "-o", dir], environment: ["NO_COLOR": "1", "XDG_STATE_HOME": dir + "/s"])
        #expect(r.status == 0)
        #expect(!r.stdout.contains("\u{1B}"))
        #expect(FileManager.default.fileExists(atPath: dir + "/5"))
    }
}

import TransferKit

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
        // The server sends 600 KB and holds the rest at a gate: the download is surely
        // mid-flight when Ctrl-C comes, however loaded the machine.
        let gate = UUID().uuidString
        // An hour of idle time: a loaded suite can hold the test between the gate and its next
        // step past the 60 s default, which would end the run before the step it checks.
        let args = ["--request-timeout", "3600", "-o", dir + "/out", "\(server.httpBase)/files/big.bin?gate=\(gate)&holdAfter=600000"]
        let first = try Run.spawn(args, environment: env)
        try await server.waitForGate(gate)
        // The client has the response head (validators) once it wrote body bytes beside the
        // destination. Not anywhere under `dir`: the state directory's run record is there
        // from the start, and a Ctrl-C before the head kept nothing (a loaded run's failure).
        try await waitFor("the first body bytes on disk") { largestFile(under: dir + "/out") > 0 }
        first.signal(SIGINT)
        let r1 = await first.wait()
        #expect(r1.status == 1, "\(r1.stdout)\(r1.stderr)")
        #expect(r1.stdout.contains("cancelled"))
        #expect(r1.stdout.contains("interrupted: 1 download(s) kept resume data"), "\(r1.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/big.bin"))
        let saved = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/resume")) ?? []
        #expect(saved.count == 1)

        server.resetStats()
        server.openGate(gate)
        let r2 = try await Run.binary(args, environment: env)
        #expect(r2.status == 0, "\(r2.stdout)\(r2.stderr)")
        #expect(r2.stdout.contains("resuming"))
        #expect(server.stats.requests.contains { $0.header("Range") != nil })
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/big.bin"))
        #expect(data == Data(LoopbackServer.body(size: size, seed: 9)))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/resume")) ?? []).isEmpty)
    }
}

@Suite struct UploadMemoryTests {
    /// A 256 MiB upload from a file streams in flat memory: its peak resident set is within
    /// 64 MiB of the same program's peak for a 1 MiB upload. Measured as the peak resident set
    /// of the `transfertop` process that does it (that process alone, so suites running beside
    /// it in the test process cannot disturb it). Against a baseline, not a constant: a
    /// sanitizer build's own memory (ASan's shadow and quarantine: 99 MiB for this run, 43 MiB
    /// plain) moves with every library the program links, which is not what this test is about.
    @Test func uploadFromAFileStreamsInFlatMemory() async throws {
        // A loop of its own: hashing 256 MiB takes long under the thread sanitizer.
        let server = try await LoopbackServer.start(threads: 1)
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func upload(_ size: Int, _ name: String) async throws -> Int64 {
            let path = dir + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            let chunk = Data(repeating: 0x5A, count: 1 << 20)
            for _ in 0..<(size >> 20) { handle.write(chunk) }
            try handle.close()
            let (r, peak) = try await Run.binaryMeasuringMemory(
                ["--no-tui", "--upload", path, "-o", dir + "/out", "\(server.httpBase)/echo?\(name)"],
                environment: ["XDG_STATE_HOME": dir + "/state"])
            #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
            #expect(server.stats.requests.last { $0.path.hasSuffix(name) }?.bodyBytesReceived == Int64(size))
            return peak
        }
        let small = try await upload(1 << 20, "small.upload")
        let big = try await upload(256 << 20, "big.upload")
        // A body read into memory would cost the whole 256 MiB on top of the program itself.
        #expect(small > 0 && big > 0 && big < small + 64 * 1024 * 1024, "peak resident \(big >> 20) MiB, \(small >> 20) MiB for 1 MiB")
    }
}

@Suite(.serialized) struct PartialLockTests {
    /// Two runs of the same command resume one interrupted download at the same time, twenty
    /// times over: one continues it, the other stops at once saying the download is
    /// already in progress, and the file is byte-exact every time.
    @Test func twoProcessesOnOneInterruptedDownload() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        for round in 0..<20 {
            let name = "race-\(round).bin"
            let size = 1_500_000
            server.setFile(name, size: size, seed: UInt8(round))
            let dir = try Run.tempDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let env = ["XDG_STATE_HOME": dir + "/state"]
            // Every response of this URL sends 500 kB, then waits at the gate: the first run is
            // interrupted there, and the resumed run that wins the partial waits there too.
            let gate = UUID().uuidString
            let args = ["--no-tui", "--request-timeout", "3600", "-o", dir + "/out", "\(server.httpBase)/files/\(name)?gate=\(gate)&holdAfter=500000"]
            let first = try Run.spawn(args, environment: env)
            try await server.waitForGate(gate)
            try await waitFor("the first body bytes on disk") { largestFile(under: dir + "/out") > 0 }
            first.signal(SIGINT)
            #expect(await first.wait().status == 1)

            let a = try Run.spawn(args, environment: env)
            let b = try Run.spawn(args, environment: env)
            // The gate opens when the first of the two exits: the loser, which stops at once,
            // while the winner holds the partial's lock with its response held at the gate (it
            // cannot finish before the gate opens). Opened from the thread that sees the exit,
            // not from this task: the winner's 60 s idle time-out runs from its arrival at the
            // gate, and an await here can be starved for longer than that in a loaded suite
            // (Tests/TestSupport/OffPool.swift); a gate opened late finds the winner gone.
            for run in [a, b] { run.onExit { server.openGate(gate) } }
            let (ra, rb) = (await a.wait(), await b.wait())
            let (won, lost) = ra.status == 0 ? (ra, rb) : (rb, ra)
            // What the server saw, for a failure's message: the client's words alone cannot say
            // whether the server held the response or sent into the void.
            let seen = server.stats.requests.filter { $0.path.contains(name) }.map { $0.header("Range") ?? "no Range" }
            let serverSide = "gate arrivals \(server.gateArrivals(gate)), requests \(seen), bytes written \(server.stats.bytesWritten)"
            #expect(won.status == 0 && lost.status == 1, "round \(round): \(serverSide)\n\(ra.stdout)\(ra.stderr)\n--\n\(rb.stdout)\(rb.stderr)")
            // Both requests reached the gate: the winner's was held there (or passed it, opened).
            #expect(server.gateArrivals(gate) == 2, "round \(round): \(serverSide)")
            #expect(won.stdout.contains("resuming"), "round \(round): \(won.stdout)")
            #expect(lost.stdout.contains("already being downloaded by process"), "round \(round): \(lost.stdout)")
            let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/" + name))
            #expect(data == Data(LoopbackServer.body(size: size, seed: UInt8(round))), "round \(round): \(data.count) bytes")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/out")
            #expect(names == [name], "round \(round): \(names)")
        }
    }
}
