import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

@Suite struct WaterfallTests {
    let now = Fixtures.at(350)

    func segs(_ hop: WaterfallHop) -> [String] {
        hop.segments.map { "\($0.phase.rawValue) \(Int($0.startMs))-\(Int($0.endMs))\($0.isRunning ? " running" : "")" }
    }

    @Test func plainHTTPHopHasNoTLS() {
        let hops = Waterfall.hops(Fixtures.threeHopMetrics(), now: now)
        #expect(segs(hops[0]) == ["queued 0-0", "dns 0-20", "connect 20-40", "request 40-45", "wait 45-95", "receive 95-100"])
        #expect(!hops[0].isReused)
        #expect(hops[0].currentPhase == nil)
    }

    @Test func httpsHopCutsConnectAtTLSStart() {
        let hop = Waterfall.hops(Fixtures.threeHopMetrics(), now: now)[1]
        #expect(segs(hop) == ["queued 100-100", "dns 100-110", "connect 110-130", "tls 130-180", "request 180-185",
                              "wait 185-235", "receive 235-240"])
    }

    @Test func reusedRunningHopGrowsToNow() {
        let hop = Waterfall.hops(Fixtures.threeHopMetrics(), now: now)[2]
        #expect(hop.isReused)
        #expect(hop.currentPhase == .receive)
        #expect(segs(hop) == ["queued 240-240", "request 240-250", "wait 250-300", "receive 300-350 running"])
        let later = Waterfall.hops(Fixtures.threeHopMetrics(), now: Fixtures.at(500))[2]
        #expect(later.segments.last?.endMs == 500)
    }

    @Test func scaleIsTheWholeTaskIntervalOrNow() {
        let running = Fixtures.threeHopMetrics()
        #expect(Waterfall.scaleMs(running, hops: Waterfall.hops(running, now: now), now: now) == 350)
        let done = Fixtures.threeHopMetrics(running: false)
        #expect(Waterfall.scaleMs(done, hops: Waterfall.hops(done, now: now), now: Fixtures.at(9999)) == 400)
    }

    @Test func queuedHopShowsItsWait() {
        let t = TransactionMetrics(method: "GET", url: "https://x.test/", fetchStartDate: Fixtures.at(10), currentPhase: .queued)
        let hop = Waterfall.hop(t, number: 1, origin: Fixtures.t0, now: Fixtures.at(60))
        #expect(segs(hop) == ["queued 10-60 running"])
        #expect(hop.label == "#1 …")
    }

    @Test func barsAreDrawnToScale() {
        let metrics = Fixtures.threeHopMetrics(running: false)
        let hops = Waterfall.hops(metrics, now: now)
        let bars = hops.map { WaterfallView.bar($0, scaleMs: 400, width: 40, utf8: false).map(\.text).joined() }
        #expect(bars == [
            "ddccs-----r                             ",
            "          dccttttts-----r               ",
            "                        s-----rrrrrrrrrr",
        ])
        // A 1 ms phase on a long scale still gets a cell; the next phase moves over.
        let tiny = WaterfallHop(label: "#1", segments: [WaterfallSegment(phase: .dns, startMs: 0, endMs: 1),
                                                         WaterfallSegment(phase: .receive, startMs: 1, endMs: 10_000)],
                                isReused: false, currentPhase: nil, failed: false)
        #expect(WaterfallView.bar(tiny, scaleMs: 10_000, width: 10, utf8: false).map(\.text).joined() == "drrrrrrrrr")
    }

    @Test func linesMarkReusedAndTheRunningPhase() {
        let lines = WaterfallView.lines(Fixtures.threeHopMetrics(), now: now, width: 100, utf8: true)
        let text = lines.map { $0.map(\.text).joined() }
        #expect(text.count == 4)
        #expect(text[1].hasSuffix("dns 20ms tcp 20ms req 5ms wait 50ms recv 5ms"))
        #expect(text[2].contains("tls 50ms"))
        #expect(!text[1].contains("tls"))
        #expect(text[3].contains("reused req 10ms wait 50ms ▶recv 50ms"))
        #expect(lines[3].contains(Span(" reused", .phaseMark)))
        #expect(WaterfallView.lines(TaskMetrics(taskIntervalStart: Fixtures.t0), now: now, width: 80, utf8: true)
            .first?.first?.text == "no transactions yet")
    }

    @Test func failedHopIsMarked() {
        var t = TransactionMetrics(method: "GET", url: "https://x.test/", fetchStartDate: Fixtures.at(0), domainLookupStartDate: Fixtures.at(0),
                                   currentPhase: .done, errorDescription: "cannot find host")
        t.domainLookupEndDate = nil
        let hop = Waterfall.hop(t, number: 1, origin: Fixtures.t0, now: now)
        #expect(hop.failed)
        #expect(hop.segments.isEmpty)  // an unfinished phase of a finished hop is not invented
        #expect(hop.label == "#1 ---")
    }
}

/// file, ftp and data: hops have no status code: the label names the protocol.
@Suite struct ByteStreamWaterfallTests {
    @Test func aFinishedFTPHopIsLabelledWithItsProtocol() {
        var t = TransactionMetrics(method: "GET", url: "ftp://h/x", fetchStartDate: Fixtures.at(0), currentPhase: .done)
        t.networkProtocolName = "ftp"
        t.responseStartDate = Fixtures.at(5)
        t.responseEndDate = Fixtures.at(9)
        #expect(Waterfall.hop(t, number: 1, origin: Fixtures.at(0), now: Fixtures.at(10)).label == "#1 ftp")
        t.errorDescription = "the file does not exist"
        #expect(Waterfall.hop(t, number: 1, origin: Fixtures.at(0), now: Fixtures.at(10)).label == "#1 ---")
    }
}
