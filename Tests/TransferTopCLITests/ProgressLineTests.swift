import Foundation
import LoopbackServer
import MonitorFixtures
import TestSupport
import Testing
import TransferKit
@testable import TransferTopCLI
@testable import TransferTopRun
import TransferTopUI

/// Line mode's progress (DECISIONS 64): the text, the in-place redraw without escape
/// codes, and `--progress` into a pipe. The terminal case is in TmuxRound2Tests.
@Suite(.serialized) struct ProgressLineTests {
    @Test func theTextCountsTasksBytesSpeedAndTheMonitorsETA() {
        let half = Fixtures.task(1, 1, .running, url: "https://example.test/a", received: 4 * Fixtures.mib, expected: 12 * Fixtures.mib)
        #expect(ProgressLine.text(finished: 3, running: [half], bytes: 20 * Fixtures.mib, speed: Double(Fixtures.mib))
            == "progress: 3 done, 1 running  20.0 MiB  1.0 MiB/s  ETA 8s")
        // The ETA is the monitor's format: Units.eta of the same seconds.
        let slow = ProgressLine.text(finished: 0, running: [half], bytes: 0, speed: 1000)
        #expect(slow.hasSuffix("ETA " + Units.eta(Double(8 * Fixtures.mib) / 1000)))
        // A task of unknown size makes the ETA unknown; nothing running is nothing left.
        let unknown = Fixtures.task(1, 2, .running, url: "https://example.test/b", received: 10)
        #expect(ProgressLine.text(finished: 0, running: [half, unknown], bytes: 0, speed: 1000).hasSuffix("ETA --"))
        #expect(ProgressLine.text(finished: 2, running: [], bytes: 5, speed: 0) == "progress: 2 done, 0 running  5 B  0 B/s  ETA 0s")
    }

    @Test func theRedrawUsesCarriageReturnAndSpacesOnly() {
        let redraw = ProgressLine.redraw("short", previousWidth: 9)
        #expect(redraw == "\rshort    ")
        #expect(ProgressLine.redraw("longer line", previousWidth: 3) == "\rlonger line")
        #expect(ProgressLine.clear(previousWidth: 4) == "\r    \r")
        #expect(ProgressLine.clear(previousWidth: 0) == "")
        #expect(ProgressLine.fit("0123456789", columns: 8) == "0123456")  // never the last column
        for text in [redraw, ProgressLine.clear(previousWidth: 4)] { #expect(!text.contains("\u{1B}")) }
    }

    @Test func theModeFollowsTheOutput() {
        #expect(LineProgress.mode(isTerminal: true, progressFlag: false) == .inPlace)
        #expect(LineProgress.mode(isTerminal: true, progressFlag: true) == .inPlace)
        #expect(LineProgress.mode(isTerminal: false, progressFlag: true) == .periodic)
        #expect(LineProgress.mode(isTerminal: false, progressFlag: false) == nil)
    }

    /// A 4 s download into a pipe: no progress lines by default, plain ones a second apart
    /// with `--progress`.
    @Test func pipedRunsPrintProgressLinesOnlyWhenAsked() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = "\(server.httpBase)/drip?size=40000&rate=10000"
        let quiet = try await Run.binary(["--no-tui", "-o", dir + "/a", url], environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(quiet.status == 0, "\(quiet.stdout)\(quiet.stderr)")
        #expect(!quiet.stdout.contains("progress:"), "\(quiet.stdout)")
        let loud = try await Run.binary(["--no-tui", "--progress", "-o", dir + "/b", url], environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(loud.status == 0, "\(loud.stdout)\(loud.stderr)")
        let lines = loud.stdout.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
        #expect(lines.count >= 2, "\(loud.stdout)")
        #expect(lines.contains { $0.hasPrefix("progress: 0 done, 1 running") && $0.contains(" ETA ") }, "\(loud.stdout)")
        #expect(!loud.stdout.contains("\r") && !loud.stdout.contains("\u{1B}"))
    }
}

/// The first progress line already has a speed: the run's start counts as a sample, so an
/// upload whose bytes all went out in the first second does not read "0 B/s  ETA --" while it
/// waits for its answer (found with `-T FILE --progress`).
@Suite struct FirstProgressLineTests {
    @Test func theFirstLineOfAnUploadHasASpeed() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(LoopbackServer.body(size: 4 << 20, seed: 9)).write(to: URL(fileURLWithPath: dir + "/up.bin"))
        let gate = "progress-\(UUID().uuidString)"
        // An hour of idle time: the answer waits at the gate until this test opens it (DECISIONS 167).
        let run = try Run.spawn(["--no-tui", "--progress", "--request-timeout", "3600", "-T", dir + "/up.bin",
                                 "\(server.httpBase)/echo?headGate=\(gate)"])
        try await server.waitForGate(gate)
        // The answer is held at the gate, so the task is still running when the first line
        // (a second after the start) is printed.
        try await waitFor("a progress line") {
            ((try? String(contentsOfFile: run.outPath, encoding: .utf8)) ?? "").contains("progress: ")
        }
        server.openGate(gate)
        let r = await run.wait()
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let first = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("progress: ") })
        #expect(first.hasPrefix("progress: 0 done, 1 running"), "\(first)")
        #expect(!first.contains(" 0 B/s") && !first.contains("ETA --"), "\(first)")
    }
}
