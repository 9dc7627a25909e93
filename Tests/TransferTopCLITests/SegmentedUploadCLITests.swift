import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI
import TransferKit
@testable import TransferTopRun

/// In the CLI: `transfertop -T FILE --segments N --segment-size SIZE URL` against the
/// loopback server's `PUT /segments/NAME`, which reassembles the file and counts attempts per
/// segment; a rerun after kill -9 sends only the segments the server had not stored.
@Suite struct SegmentedUploadCLITests {
    static let segment = 64 * 1024

    func source(_ dir: String, segments: Int, extra: Int = 0) throws -> (path: String, sha: String) {
        let data = Data(LoopbackServer.body(size: segments * Self.segment + extra, seed: 9))
        let path = dir + "/source.bin"
        try data.write(to: URL(fileURLWithPath: path))
        return (path, SHA256.hex(data))
    }

    /// A one-at-a-time upload of `segments` segments to `/segments/NAME`, the server holding
    /// its answer to the segment at `heldAt` (0-based) at gate `gate`; `close()` removes it all.
    /// An hour of idle time: a held segment that timed out would be sent again (DECISIONS 167).
    struct HeldUpload {
        let server: LoopbackServer
        let dir: String
        let file: (path: String, sha: String)
        let env: [String: String]
        let args: [String]

        init(_ test: SegmentedUploadCLITests, name: String, segments: Int, heldAt: Int, gate: String) async throws {
            server = try await LoopbackServer.start()
            dir = try Run.tempDirectory()
            file = try test.source(dir, segments: segments)
            env = ["XDG_STATE_HOME": dir + "/state"]
            args = ["-T", file.path, "--segments", "1", "--segment-size", "64K", "--request-timeout", "3600",
                    "\(server.httpBase)/segments/\(name)?holdAt=\(heldAt * SegmentedUploadCLITests.segment)&holdGate=\(gate)"]
        }

        func close() {
            try? FileManager.default.removeItem(atPath: dir)
            let server = self.server
            Task { try? await server.shutdown() }
        }
    }

    @Test func aFileGoesUpInSegmentsAndTheRecordIsGoneAfterward() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try source(dir, segments: 5, extra: 777)
        let env = ["XDG_STATE_HOME": dir + "/state"]
        let r = try await Run.binary(["-T", file.path, "--segments", "3", "--segment-size", "64K",
                                      "\(server.httpBase)/segments/whole?fail=\(2 * Self.segment)"], environment: env)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let report = try #require(server.segmentUpload("whole"))
        #expect(report.sha256 == file.sha)
        #expect(report.maxInFlight <= 3)
        #expect(report.attempts[Int64(2 * Self.segment)] == 2)
        #expect(r.stdout.contains("6 segments of 64.0 KiB, 3 at a time"))
        #expect(r.stdout.contains("segment 3/6 (bytes 131072-196607/328457) failed, attempt 1: HTTP 500"))
        #expect(r.stdout.contains("[######] 100%"))
        #expect(r.stdout.contains("1 segment(s) retried"))
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/segments")) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    /// DECISIONS 110: a segmented upload with `-k` says so on stderr before it starts.
    @Test func aSegmentedUploadWithInsecureSaysSo() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try source(dir, segments: 2, extra: 1)
        let r = try await Run.binary(["-k", "-T", file.path, "--segments", "2", "--segment-size", "64K",
                                      "\(server.httpBase)/segments/insecure"], environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").first.map(String.init) == "transfertop: warning: -k: TLS certificates are not verified", "\(r.stderr)")
    }

    /// The first run is killed (-9) while the server holds the answer to segment 4 of 6 (sent
    /// one at a time); a second run started meanwhile refuses to send the same upload; the
    /// rerun after the kill sends segment 4 again and 5 and 6, never 1-3.
    @Test func aRerunAfterKillSendsOnlyTheMissingSegments() async throws {
        let upload = try await HeldUpload(self, name: "rerun", segments: 6, heldAt: 3, gate: "seg4")
        defer { upload.close() }
        let (server, dir, file, env, args) = (upload.server, upload.dir, upload.file, upload.env, upload.args)
        let first = try Run.spawn(args, environment: env)
        try await server.waitForGate("seg4")
        try await Self.waitForRecord(under: dir + "/state", naming: [0, 1, 2])

        let second = try await Run.binary(args, environment: env)
        #expect(second.status == 1)
        #expect(second.stderr.contains("another transfertop is sending"), "\(second.stderr)")

        first.signal(SIGKILL)
        let killed = await first.wait()
        #expect(killed.status == 128 + SIGKILL)
        server.openGate("seg4")

        let rerun = try await Run.binary(args, environment: env)
        #expect(rerun.status == 0, "\(rerun.stdout)\n\(rerun.stderr)")
        #expect(rerun.stdout.contains("3 stored by an earlier run"))
        let report = try #require(server.segmentUpload("rerun"))
        #expect(report.sha256 == file.sha)
        let s = Int64(Self.segment)
        #expect(report.attempts == [0: 1, s: 1, 2 * s: 1, 3 * s: 2, 4 * s: 1, 5 * s: 1])
    }

    /// Overwrites 100 bytes at `offset` of `path` in place (same inode, same size) and sets
    /// its access and modification times back, as an editor or a careless script might.
    static func editInPlaceKeepingTimes(_ path: String, at offset: UInt64) throws -> String {
        var st = stat()
        #expect(stat(path, &st) == 0)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(repeating: 0xAB, count: 100))
        try handle.close()
        let times = [st.st_atim, st.st_mtim]
        #expect(utimensat(AT_FDCWD, path, times, 0) == 0)
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_mtim.tv_sec == st.st_mtim.tv_sec && after.st_mtim.tv_nsec == st.st_mtim.tv_nsec)
        return SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The first run is killed with three of six segments stored; the file is then edited in
    /// place with its modification time set back. The rerun must not trust the record (old
    /// segments 1-3 and new 4-6 would make a file that never existed): it says why and sends
    /// every segment, and the server ends with the edited file.
    @Test func aRerunAfterAnEditInPlaceSendsEverySegment() async throws {
        let upload = try await HeldUpload(self, name: "edited", segments: 6, heldAt: 3, gate: "edit4")
        defer { upload.close() }
        let (server, dir, file, env, args) = (upload.server, upload.dir, upload.file, upload.env, upload.args)
        let first = try Run.spawn(args, environment: env)
        try await server.waitForGate("edit4")
        try await Self.waitForRecord(under: dir + "/state", naming: [0, 1, 2])
        first.signal(SIGKILL)
        _ = await first.wait()
        server.openGate("edit4")

        let edited = try Self.editInPlaceKeepingTimes(file.path, at: 10)
        #expect(edited != file.sha)
        let rerun = try await Run.binary(args, environment: env)
        #expect(rerun.status == 0, "\(rerun.stdout)\n\(rerun.stderr)")
        #expect(rerun.stdout.contains("changed since the earlier run (it was written or its attributes changed); sending every segment"),
                "\(rerun.stdout)")
        #expect(!rerun.stdout.contains("stored by an earlier run"), "\(rerun.stdout)")
        let report = try #require(server.segmentUpload("edited"))
        #expect(report.sha256 == edited)
        #expect(report.attempts[0] == 2)
    }

    /// The file is edited while the server holds segment 2, its modification time set back:
    /// the run fails (exit 1) saying so, as it does when the modification time moves, and
    /// the rerun sends every segment, not the ones the failed run's record names.
    @Test func anEditDuringTheRunWithItsTimeSetBackFailsItAndTheRerunSendsAll() async throws {
        let upload = try await HeldUpload(self, name: "during", segments: 3, heldAt: 1, gate: "during2")
        defer { upload.close() }
        let (server, file, env, args) = (upload.server, upload.file, upload.env, upload.args)
        let run = try Run.spawn(args, environment: env)
        try await server.waitForGate("during2")
        let edited = try Self.editInPlaceKeepingTimes(file.path, at: 10)
        server.openGate("during2")
        let r = await run.wait()
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("changed while it was sent (it was written or its attributes changed)"), "\(r.stderr)")
        let rerun = try await Run.binary(args, environment: env)
        #expect(rerun.status == 0, "\(rerun.stdout)\n\(rerun.stderr)")
        #expect(rerun.stdout.contains("changed since the earlier run"), "\(rerun.stdout)")
        #expect(try #require(server.segmentUpload("during")).sha256 == edited)
    }

    /// Waits until the run's record of stored segments (under `state`) names `segments`: the
    /// server holding the next one says the earlier ones were answered, not that the client
    /// has written them down yet (a TSan run killed it in between and found no record).
    static func waitForRecord(under state: String, naming segments: [Int]) async throws {
        try await waitFor("a record of segments \(segments)") {
            let dir = state + "/transfertop/segments"
            let records = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".json") }
            return records.contains { name in
                let data = FileManager.default.contents(atPath: dir + "/" + name) ?? Data()
                let record = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
                return (record?["done"] as? [Int]).map { Set($0) } == Set(segments)
            }
        }
    }

    @Test func ctrlCStopsTheUploadKeepsTheRecordAndExits130() async throws {
        let upload = try await HeldUpload(self, name: "int", segments: 3, heldAt: 1, gate: "seg2")
        defer { upload.close() }
        let (server, file, env, args) = (upload.server, upload.file, upload.env, upload.args)
        let run = try Run.spawn(args, environment: env)
        try await server.waitForGate("seg2")
        run.signal(SIGINT)
        let r = await run.wait()
        #expect(r.status == 130, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("interrupted: 1 of 3 segments stored"), "\(r.stdout)")
        server.openGate("seg2")
        let rerun = try await Run.binary(args, environment: env)
        #expect(rerun.status == 0 && rerun.stdout.contains("1 stored by an earlier run"), "\(rerun.stdout)")
        #expect(try #require(server.segmentUpload("int")).sha256 == file.sha)
    }

    /// A two-segment upload to `/status/CODE`, which answers every request with CODE: the run's
    /// result and how many requests reached the server.
    private func uploadRefused(with code: Int) async throws -> (run: RunResult, requests: Int) {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try source(dir, segments: 2)
        let r = try await Run.binary(["-T", file.path, "--segments", "1", "--segment-size", "64K",
                                      "\(server.httpBase)/status/\(code)"], environment: ["XDG_STATE_HOME": dir + "/state"])
        return (r, server.stats.requests.filter { $0.path == "/status/\(code)" }.count)
    }

    @Test func aRefusedSegmentEndsTheRunWithoutRetrying() async throws {
        // A 4xx is not retried.
        let (r, requests) = try await uploadRefused(with: 403)
        #expect(r.status == 1)
        #expect(r.stderr.contains("segment 1 of 2 (bytes 0-65535/131072) failed 1 times"), "\(r.stderr)")
        #expect(requests == 1)
    }

    /// Decision 106: a record of stored segments edited (or damaged) to name segments this
    /// upload does not have, one of them far past the end (its offset overflowed Int64 and
    /// trapped), is read for the segments it may name only.
    @Test func aRecordNamingSegmentsOutOfRangeIsFiltered() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try source(dir, segments: 4)
        let env = ["XDG_STATE_HOME": dir + "/state"]
        // An hour of idle time for the held segment (DECISIONS 167).
        let args = ["-T", file.path, "--segments", "1", "--segment-size", "64K", "--request-timeout", "3600",
                    "\(server.httpBase)/segments/odd?holdAt=\(2 * Self.segment)&holdGate=odd"]
        let first = try Run.spawn(args, environment: env)
        try await server.waitForGate("odd")
        try await Self.waitForRecord(under: dir + "/state", naming: [0, 1])
        first.signal(SIGKILL)
        _ = await first.wait()
        server.openGate("odd")
        let records = try FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/segments").filter { $0.hasSuffix(".json") }
        let path = dir + "/state/transfertop/segments/" + (try #require(records.first))
        var record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(record["done"] as? [Int] == [0, 1])
        record["done"] = [0, 1, -1, 4, 1 << 62]
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: path))

        let rerun = try await Run.binary(args, environment: env)
        #expect(rerun.status == 0, "\(rerun.stdout)\n\(rerun.stderr)")
        #expect(rerun.stdout.contains("; 2 stored by an earlier run"), "\(rerun.stdout)")
        #expect(try #require(server.segmentUpload("odd")).sha256 == file.sha)
    }

    /// Decision 107: 501 (nginx's answer to a PUT with Content-Range) is final, said in words,
    /// and not retried.
    @Test func a501IsFinalAndSaysRangedPutsAreNotAccepted() async throws {
        let (r, requests) = try await uploadRefused(with: 501)
        #expect(r.status == 1)
        #expect(r.stderr.contains("the server does not accept ranged PUTs"), "\(r.stderr)")
        #expect(requests == 1)
    }

    /// Decision 107: the file is rewritten (its modification time changes) while the server
    /// holds segment 2 of 3; every segment is then stored, but the run fails instead of
    /// reporting an upload that may mix old and new bytes.
    @Test func aFileChangedDuringTheUploadFailsTheRun() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try source(dir, segments: 3)
        // An hour of idle time for the held segment (DECISIONS 167).
        let args = ["-T", file.path, "--segments", "1", "--segment-size", "64K", "--request-timeout", "3600",
                    "\(server.httpBase)/segments/changed?holdAt=\(Self.segment)&holdGate=changed"]
        let run = try Run.spawn(args, environment: ["XDG_STATE_HOME": dir + "/state"])
        try await server.waitForGate("changed")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: file.path)
        server.openGate("changed")
        let r = await run.wait()
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("changed while it was sent"), "\(r.stderr)")
        #expect(!r.stdout.contains("uploaded '"), "\(r.stdout)")
    }

    /// Decision 108: `--segments 8` runs 8 at once although `--max-connections-per-host` is 6
    /// by default; the session's per-host limit is raised to N (never lowered).
    @Test func theSessionMayOpenAConnectionPerSegment() throws {
        var plan = RunPlan(sessions: [SessionPlan(name: "s")], outputDirectory: "/tmp")
        #expect(plan.sessions[0].configuration.httpMaximumConnectionsPerHost == 6)
        #expect(SegmentedRun.withConnections(plan, segments: 8).sessions[0].configuration.httpMaximumConnectionsPerHost == 8)
        plan.sessions[0].maxConnectionsPerHost = 10
        #expect(SegmentedRun.withConnections(plan, segments: 8).sessions[0].configuration.httpMaximumConnectionsPerHost == 10)
    }
}
