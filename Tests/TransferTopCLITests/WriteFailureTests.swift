import Foundation
import LoopbackServer
import TestSupport
import Testing

/// A command whose standard output or log file cannot be written ends with 1 and says so,
/// as curl's write error does; the transfers themselves go on. The failures are real ones:
/// a stdout the process may not write (a read-only descriptor: EBADF) and a pipe whose reader
/// has gone (EPIPE). Not a file-size limit (`ulimit -f`): under the thread sanitizer a process
/// limited to a few hundred bytes died of SIGBUS in the runtime's own file mappings.
@Suite struct WriteFailureTests {
    /// The binary with `ARGS`, its stdout a descriptor open for reading only.
    static func runWithUnwritableStdout(_ args: [String]) async throws -> RunResult {
        let readOnly = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(readOnly >= 0)
        defer { close(readOnly) }
        return try await Run.spawn(args, standardOutput: .descriptor(readOnly)).wait()
    }

    /// The binary with `ARGS`, its stdout a pipe whose read end is already closed.
    static func runIntoAClosedPipe(_ args: [String], environment: [String: String] = [:]) async throws -> RunResult {
        let pipe = try ChildProcess.closeOnExecPipe()
        close(pipe.read)
        let run = try Run.spawn(args, environment: environment, standardOutput: .descriptor(pipe.write))
        close(pipe.write)
        return await run.wait()
    }

    @Test func stdoutThatCannotBeWrittenFailsTheCommandAndSaysWhy() async throws {
        let r = try await Self.runWithUnwritableStdout(["--help"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("transfertop: cannot write to standard output: Bad file descriptor"), "\(r.stderr)")
    }

    /// `report` to a stdout that cannot take the page: exit 2, as for any report that cannot
    /// be written.
    @Test func aReportThatCannotBeWrittenToStdoutExitsTwo() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ReportCLITests.csv.write(toFile: dir + "/run.csv", atomically: true, encoding: .utf8)
        let r = try await Self.runWithUnwritableStdout(["report", dir + "/run.csv"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("transfertop: cannot write to standard output: Bad file descriptor"), "\(r.stderr)")
    }

    /// A reader that closed the pipe (`| head`) fails the command without a message, and the
    /// download is still made.
    @Test func aClosedPipeFailsTheRunQuietlyAndTheDownloadIsKept() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Self.runIntoAClosedPipe(["-o", dir, "\(server.httpBase)/bytes/1000"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(!r.stderr.contains("cannot write"), "\(r.stderr)")
        #expect(fileSize(dir + "/1000") == 1000)
    }

    /// The log goes to stdout, a pipe nobody reads: the download is made, and the end says
    /// how many lines were lost.
    @Test func aLogFileThatCannotBeWrittenFailsTheRunAndCountsTheLostLines() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Self.runIntoAClosedPipe(["-o", dir + "/out", "--trace", "--log-file", "/dev/stdout", "\(server.httpBase)/bytes/100"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("transfertop: cannot write the log file '/dev/stdout': Broken pipe; "), "\(r.stderr)")
        #expect(r.stderr.contains(" lines lost"), "\(r.stderr)")
        #expect(fileSize(dir + "/out/100") == 100)
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
