import Digest
import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferModel

/// A restored download continues from the last offset its resume record made durable, not
/// from where an earlier stop left it (DECISIONS 174), with a real daemon killed with -9.
@Suite(.serialized) struct DaemonDurableOffsetTests {
    typealias Rig = BackgroundDaemonTests.Rig

    /// The offset the download's resume record holds (one download: one record).
    static func recorded(_ rig: Rig) -> Int64? {
        let dir = rig.env["XDG_STATE_HOME"]! + "/transfertop/resume"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".resume") }
        guard names.count == 1, let data = FileManager.default.contents(atPath: dir + "/" + names[0]) else { return nil }
        return (try? ResumeData(decoding: data))?.bytesReceived
    }

    /// Stopped at K (resume data K), restored, grown to 2K at the same gate, killed with -9:
    /// the second restore asks from 2K, so no byte is fetched twice.
    @Test func aRestoredDownloadContinuesFromItsLastDurableOffset() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let rig = try Rig()
        let size = 2_500_000, k = 1_000_000
        server.setFile("grow.bin", size: size, seed: 6)
        // Every response holds at K bytes of its own body: the first at K, the restored one
        // (from K) at 2K; the last one (from 2K) has less than K to send and never stops.
        let gate = UUID().uuidString
        let url = "\(server.httpBase)/files/grow.bin?gate=\(gate)&holdAfter=\(k)"
        let submit = try await rig.run(["--background", "g", "-o", rig.out, url])
        #expect(submit.status == 0, "\(submit.stdout)\(submit.stderr)\(rig.log)")
        try await server.waitForGate(gate)
        try await waitFor("the record at \(k)") { Self.recorded(rig) == Int64(k) }
        // A stop keeps resume data at K; the next daemon restores the download from there.
        let stop = try await rig.run(["daemon", "stop"])
        #expect(stop.status == 0, "\(stop.stdout)\(stop.stderr)\(rig.log)")
        #expect(Self.recorded(rig) == Int64(k))
        #expect(try await rig.run(["status", "g"]).status == 0)
        try await server.waitForGate(gate, arrivals: 2)
        // The restored download's record follows its file: 2K once those bytes are on disk.
        do {
            try await waitFor("the record at \(2 * k)") { Self.recorded(rig) == Int64(2 * k) }
        } catch {
            let dir = rig.env["XDG_STATE_HOME"]! + "/transfertop/resume"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            Issue.record("\(error): records \(names), offset \(String(describing: Self.recorded(rig)))\(rig.log)")
            return
        }
        let lastCheckpoint = try #require(Self.recorded(rig))
        await rig.killDaemon()
        let wait = try await rig.run(["wait", "g"])
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)\(rig.log)")
        #expect(wait.stdout.contains("g:1 completed ok"), "\(wait.stdout)")
        #expect(BackgroundDaemonTests.sha(rig.out + "/grow.bin") == SHA256.hex(Data(LoopbackServer.body(size: size, seed: 6))))
        let ranges = server.stats.requests.compactMap { $0.header("Range") }
        #expect(ranges == ["bytes=\(k)-", "bytes=\(2 * k)-"], "the same range twice is the bug: \(ranges)")
        let lastStart = ranges.last.flatMap { Int64($0.dropFirst("bytes=".count).dropLast()) }
        #expect(lastStart.map { $0 >= lastCheckpoint } == true, "restored from \(String(describing: lastStart)), recorded \(lastCheckpoint)")
        // Each byte of the file crossed the wire once.
        #expect(server.stats.bytesWritten == Int64(size), "\(server.stats.bytesWritten) bytes sent for \(size)")
    }
}
