import Foundation
import LoopbackServer
import Testing
import TransferKit

/// In the monitor, in a real terminal: a segmented upload is one session whose tasks
/// are its segments, with the segment map in the session row; held at the fourth segment by
/// the server, the map shows three stored and one in flight; released, all six are stored and
/// `q` ends the run with 0 (the monitor stays until asked to quit, as for downloads).
@Suite(.serialized) struct SegmentedUploadMonitorTests {
    static let segment = 64 * 1024

    /// Writes a source of `segments` 64 KiB segments into the rig's directory and starts
    /// `transfertop -T --segments 1` on it in the rig's tmux (160x30), with the server holding
    /// the upload at the start of segment `holdAtSegment` (0-based) behind the returned gate.
    /// The pane stays open after the exit (`sleep 3600`, until the test kills its tmux server) so
    /// the tests can read TT-EXITED, however slow the machine; an hour of idle time keeps the held
    /// segment from timing out (and being sent again) meanwhile (DECISIONS 167).
    private func startUpload(in rig: TmuxRig, segments: Int, seed: UInt8, name: String,
                             holdAtSegment: Int) async throws -> (data: Data, gate: String) {
        let data = Data(LoopbackServer.body(size: segments * Self.segment, seed: seed))
        try data.write(to: URL(fileURLWithPath: rig.dir + "/source.bin"))
        let gate = UUID().uuidString
        let url = "\(rig.server.httpBase)/segments/\(name)?holdAt=\(holdAtSegment * Self.segment)&holdGate=\(gate)"
        let command = "cd \(rig.dir) && env TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=\(rig.dir)/state XDG_CONFIG_HOME=\(rig.dir)/config "
            + "\(rig.binary) -T source.bin --segments 1 --segment-size 64K --request-timeout 3600 '\(url)'; echo TT-EXITED $?; sleep 3600"
        try await rig.tmux.run(["new-session", "-d", "-s", "t", "-x", "160", "-y", "30", command])
        return (data, gate)
    }

    @Test func theSessionRowShowsTheSegmentMapAndTheRunEndsWhenAllAreStored() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (server, tmux) = (rig.server, rig.tmux)
        let (data, gate) = try await startUpload(in: rig, segments: 6, seed: 4, name: "monitor", holdAtSegment: 3)

        try await server.waitForGate(gate)
        // One wait for both: a frame reads the tasks' snapshots and then the segment map, so a
        // frame drawn while segment 3 ended and 4 began can show the new map over the old
        // rows, and a starved monitor leaves that frame up until its next tick.
        try await tmux.waitFor { $0.contains("###>..") && $0.contains("segment 4/6") }  // the held segment's task

        server.openGate(gate)
        _ = try await tmux.waitFor { $0.contains("######") && $0.contains("✓6") }
        try await tmux.keys("q")
        let end = try await tmux.waitFor { $0.contains("TT-EXITED") }
        #expect(end.contains("TT-EXITED 0"), "\(end)")
        #expect(end.contains("uploaded 'source.bin'"), "\(end)")
        let report = try #require(server.segmentUpload("monitor"))
        #expect(report.sha256 == SHA256.hex(data))
    }

    /// Decision 105: `q` (answered `y`) while the server holds segment 2 of 3 cancels the
    /// upload, not only its tasks: the cancelled segment is not sent again, segment 3 never
    /// starts, the run ends (1: not everything was sent) and the record of segment 1 stays for a rerun. Before,
    /// the cancelled segment came back as retryable and the upload went on behind the quit.
    @Test func quittingCancelsTheUploadAndKeepsTheRecord() async throws {
        let rig = try await TmuxRig.start()
        defer { rig.close() }
        let (server, dir, tmux) = (rig.server, rig.dir, rig.tmux)
        let segment = Self.segment
        let (_, gate) = try await startUpload(in: rig, segments: 3, seed: 5, name: "quit", holdAtSegment: 1)

        try await server.waitForGate(gate)
        _ = try await tmux.waitFor { $0.contains("#>.") }
        try await tmux.keys("q")
        _ = try await tmux.waitFor { $0.contains("quit?") }
        try await tmux.keys("y")
        let end = try await tmux.waitFor { $0.contains("TT-EXITED") }
        server.openGate(gate)
        #expect(end.contains("TT-EXITED 1"), "\(end)")  // quit before the end, as for any task
        #expect(end.contains("cancelled; 1 of 3 segments stored; run the same command again"), "\(end)")
        #expect(!end.contains("uploaded 'source.bin'"), "\(end)")
        let report = try #require(server.segmentUpload("quit"))
        #expect(report.attempts == [0: 1, Int64(segment): 1], "\(report.attempts)")
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/transfertop/segments")) ?? []
        #expect(kept.contains { $0.hasSuffix(".json") }, "\(kept)")
    }
}
