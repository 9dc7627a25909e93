import Foundation
import LoopbackServer
import TestSupport
import Testing

/// A command whose standard output or log file cannot be written ends with 1 and says so,
/// as curl's write error does; the transfers themselves go on. The failures are real ones:
/// a pipe whose reader has gone (EPIPE) and a file-size limit (`ulimit -f`, EFBIG, with
/// SIGXFSZ ignored by the binary), the way a full disk fails a write.
@Suite struct WriteFailureTests {
    /// `sh -c 'ulimit -f 1; exec transfertop ARGS'`: every file the run writes stops at 512 bytes.
    static func runLimited(_ args: [String], environment: [String: String] = [:]) async throws -> RunResult {
        let binary = try #require(Binary.path)
        return try await Run.spawn(["-c", "ulimit -f 1; exec \"$0\" \"$@\"", binary] + args,
                                   environment: environment, executable: "/bin/sh").wait()
    }

    @Test func stdoutThatCannotBeWrittenFailsTheCommandAndSaysWhy() async throws {
        let r = try await Self.runLimited(["--help"])  // far longer than 512 bytes
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("transfertop: cannot write to standard output: File too large"), "\(r.stderr)")
    }

    /// `report` to a stdout that cannot take the page: exit 2, as for any report that cannot
    /// be written.
    @Test func aReportThatCannotBeWrittenToStdoutExitsTwo() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ReportCLITests.csv.write(toFile: dir + "/run.csv", atomically: true, encoding: .utf8)
        let r = try await Self.runLimited(["report", dir + "/run.csv"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("transfertop: cannot write to standard output: File too large"), "\(r.stderr)")
    }

    /// A reader that closed the pipe (`| head`) fails the command without a message, and the
    /// download is still made.
    @Test func aClosedPipeFailsTheRunQuietlyAndTheDownloadIsKept() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pipe = try ChildProcess.closeOnExecPipe()
        close(pipe.read)
        let run = try Run.spawn(["-o", dir, "\(server.httpBase)/bytes/1000"], standardOutput: .descriptor(pipe.write))
        close(pipe.write)
        let r = await run.wait()
        #expect(r.status == 1, "\(r.stderr)")
        #expect(!r.stderr.contains("cannot write"), "\(r.stderr)")
        #expect(fileSize(dir + "/1000") == 1000)
    }

    /// The log stops at the limit; the download is made, and the end says how many lines were lost.
    @Test func aLogFileThatCannotBeWrittenFailsTheRunAndCountsTheLostLines() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/run.log"
        let r = try await Self.runLimited(["-o", dir + "/out", "--trace", "--log-file", log, "\(server.httpBase)/bytes/100"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("transfertop: cannot write the log file '\(log)': File too large; "), "\(r.stderr)")
        #expect(r.stderr.contains(" lines lost") || r.stderr.contains(" line lost"), "\(r.stderr)")
        #expect(fileSize(log) <= 512)
        #expect(fileSize(dir + "/out/100") == 100)
        #expect(r.stdout.contains("completed ok"), "\(r.stdout)")
    }

    /// A state directory that cannot hold the completion records (here a file) is said once;
    /// the downloads are made and the run succeeds: only a rerun's skip is lost.
    @Test func aStateDirectoryThatCannotBeUsedIsSaidOnce() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let state = dir + "/state"
        #expect(FileManager.default.createFile(atPath: state, contents: Data()))
        let r = try await Run.binary(["-o", dir + "/out", "\(server.httpBase)/bytes/100", "\(server.httpBase)/bytes/200"],
                                     environment: ["XDG_STATE_HOME": state])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let said = "note: completed downloads cannot be recorded in '\(state)/transfertop/complete': Not a directory; a rerun downloads them again"
        #expect(r.stdout.components(separatedBy: said).count == 2, "\(r.stdout)")
        #expect(fileSize(dir + "/out/100") == 100 && fileSize(dir + "/out/200") == 200)
    }

    @Test func aWritableLogAndStdoutLeaveTheStatusAlone() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["-o", dir + "/out", "--trace", "--log-file", dir + "/run.log", "\(server.httpBase)/bytes/100"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!r.stderr.contains("cannot write"), "\(r.stderr)")
        #expect(fileSize(dir + "/run.log") > 512)
    }
}
