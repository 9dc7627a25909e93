import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// The mission's state names, metrics at a glance, colour per theme and depth.
@Suite struct MonitorRound2Tests {
    static func task(_ id: Int, in model: MonitorModel) -> TaskSnapshot {
        model.sessions.flatMap(\.tasks).first { $0.id.description == "\(id / 10).\(id % 10)" }!
    }

    @Test func statesAndOutcomesInTheMissionsWords() {
        let m = Fixtures.model(width: 120, height: 40)
        let words = m.sessions.flatMap(\.tasks).map { "\($0.id) \(DisplayState.text($0))" }
        #expect(words == [
            "1.1 running", "1.2 suspended", "1.3 completed ok", "1.4 running", "1.6 running",
            "2.1 canceling", "2.2 completed HTTP 404", "2.3 completed error", "3.1 completed cancelled", "3.2 queued",
        ])
        #expect(DisplayState(Self.task(22, in: m)).role == .stateFailed)
        #expect(DisplayState(Self.task(32, in: m)).role == .stateQueued)
    }

    @Test func anHTTPErrorIsNotAGreenFullBar() {
        let m = Fixtures.model(width: 120, height: 40)
        let spans = ScreenRenderer.progressCell(Self.task(22, in: m), model: m, barWidth: 10)
        #expect(!spans.contains { $0.role == .barFill })
        #expect(spans.contains { $0.role == .barError })
        #expect(!spans.map(\.text).joined().contains("100%"))
    }

    @Test func theLivePhaseIsWaitNotRequest() {
        let m = Fixtures.model(width: 120, height: 40)
        let hops = Waterfall.hops(Self.task(16, in: m).metrics, now: m.now)
        #expect(TaskPhases.livePhase(hops: hops) == .wait)
        #expect(hops[0].segments.first { $0.phase == .request }?.isRunning == false)
        // TTFB from the queue's end (0 ms here) grows with the wait: now is 350 ms
        #expect(TaskPhases.cell(.wait, hops: hops) == [Span("350ms", .phaseMark)])
        #expect(ScreenRenderer.resultCell(Self.task(16, in: m), hops: hops) == [Span("wait", .phaseWait)])
    }

    @Test func phaseCells() {
        let m = Fixtures.model(width: 120, height: 40)
        func cells(_ id: Int) -> [String] {
            let hops = Waterfall.hops(Self.task(id, in: m).metrics, now: m.now)
            return [WaterfallPhase.dns, .connect, .tls, .wait].map { TaskPhases.cell($0, hops: hops).map(\.text).joined() }
        }
        // TTFB is from the queue's end to the first byte, as the CSV's ttfb_ms:
        // request 10 + wait 50 on the reused connection; 4 + 12 + 30 + 1 + 45 on a new one.
        #expect(cells(11) == ["-", "reused", "-", "60ms"])  // reused connection, not blanks
        #expect(cells(22) == ["4.0ms", "12ms", "30ms", "92ms"])
        #expect(cells(23) == ["38ms", "-", "-", "-"])  // a failed lookup keeps its DNS time
        #expect(cells(13) == ["", "", "", ""])  // no transactions recorded
        #expect(TaskPhases.compactMillis(0.42) == "0.4ms")
        #expect(TaskPhases.compactMillis(1234) == "1.2s")
        #expect(TaskPhases.compactMillis(12_345) == "12.3s")
        #expect(TaskPhases.compactMillis(3_600_000) == "60m")
    }

    @Test func queuedTasksSayWhy() {
        let m = Fixtures.model(width: 120, height: 40)
        let line = ScreenRenderer.stateLine(Self.task(32, in: m), model: m).map(\.text).joined()
        #expect(line == "state: queued, waiting for a connection to example.test (1 per host)")
    }

    @Test func urlsAreCutInTheMiddle() {
        #expect(TextFit.middle("example.test/a/very/long/path/big.iso", 20) == "example.t…th/big.iso")
        #expect(TextFit.middle("short", 20) == "short")
        #expect(DisplayWidth.of(TextFit.middle("例え.test/文件/データ.bin", 11)) <= 11)
    }

    @Test func columnsAtTheIssuesWidths() {
        func names(_ w: Int) -> [String] { TaskColumns.fit(width: w, idWidth: 3).columns.map(\.column.rawValue) }
        #expect(names(80) == ["id", "state", "url", "progress", "result", "ttfb", "waterfall", "speed"])
        for w in [100, 120, 200] {
            #expect(Set(["dns", "connect", "tls", "ttfb", "waterfall"]).isSubset(of: names(w)), "at \(w)")
        }
        for w in [80, 100, 120, 200] {
            #expect(TaskColumns.fit(width: w, idWidth: 3).columns.reduce(1) { $0 + $1.width + 1 } - 1 == w)
        }
    }

    @Test func headerHidesTheFrameTimeUnlessDebugging() {
        var m = Fixtures.model(width: 200, height: 40)
        #expect(!ScreenRenderer.render(m).rowText(0).contains("frame"))
        m.debug = true
        #expect(ScreenRenderer.render(m).rowText(0).contains("frame 1.3ms"))
        #expect(Units.count(1, "task") == "1 task" && Units.count(2, "session") == "2 sessions")
    }

    @Test(arguments: [(80, 24), (100, 30), (200, 60)])
    func goldenScreensRound2(size: (Int, Int)) {
        let grid = ScreenRenderer.render(Fixtures.model(width: size.0, height: size.1))
        Golden.check(grid.render(), "round2-\(size.0)x\(size.1)")
    }

    @Test func noColorGlyphsTellPhasesApart() {
        var m = Fixtures.model(width: 120, height: 40)
        m.monochrome = true
        Golden.check(ScreenRenderer.render(m).render(), "round2-120x40-monochrome")
        let glyphs = Set(WaterfallPhase.allCases.map { WaterfallView.glyph($0, utf8: true, monochrome: true) })
        #expect(glyphs.count == WaterfallPhase.allCases.count)
    }

    @Test func helpHasTheLegend() {
        let text = HelpScreen.lines(bindings: .defaults).map { $0.map(\.text).joined() }.joined(separator: "\n")
        for s in DisplayState.allCases { #expect(text.contains(s.symbol(utf8: true) + " ")) }
        #expect(text.contains("TTFB column"))
        let footer = ScreenRenderer.render(Fixtures.model(width: 200, height: 60)).rowText(59)
        #expect(footer.hasSuffix("◌queued ▶running ‖suspended ⊘canceling ✓ok !HTTP error ✗error ∅cancelled"))
    }

    /// Every shipped theme at every depth: each role's resolved style, one line per role.
    @Test(arguments: ["default", "light", "high-contrast", "monochrome"])
    func themeGoldensPerDepth(name: String) throws {
        let theme = try ThemeParser.parse(ThemeTests.read(name), file: "themes/\(name).toml", base: nil)
        var out: [String] = []
        for depth in ColorDepth.allCases {
            let resolved = theme.resolved(depth: depth)
            out.append("[\(depth.rawValue)]")
            for role in StyleRole.allCases {
                let s = resolved[role]
                out.append("\(role.rawValue) \(Self.describe(s.foreground)) on \(Self.describe(s.background)) "
                           + s.attributes.map(\.rawValue).sorted().joined(separator: ","))
            }
        }
        Golden.check(out.joined(separator: "\n"), "theme-\(name)")
    }

    /// The light theme is readable on white: every state, phase and bar role's colour has a
    /// WCAG contrast of at least 3:1 against a white background at truecolor.
    @Test func lightThemeIsReadableOnWhite() throws {
        let theme = try ThemeParser.parse(ThemeTests.read("light"), file: "themes/light.toml", base: nil)
        let prefixes = ["state", "phase", "bar", "http"]
        let roles = StyleRole.allCases.filter { role in prefixes.contains { role.rawValue.hasPrefix($0) } }
        for role in roles {
            guard case .rgb(let r, let g, let b) = theme.resolved(depth: .truecolor)[role].foreground else { continue }
            let contrast = 1.05 / (Self.luminance(r, g, b) + 0.05)
            #expect(contrast >= 3, "\(role) \(contrast)")
        }
    }

    static func luminance(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Double {
        func c(_ v: UInt8) -> Double {
            let s = Double(v) / 255
            return s <= 0.03928 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * c(r) + 0.7152 * c(g) + 0.0722 * c(b)
    }

    static func describe(_ c: ResolvedColor) -> String {
        switch c {
        case .default: return "default"
        case .index(let i): return "\(i)"
        case .rgb(let r, let g, let b): return "rgb(\(r),\(g),\(b))"
        }
    }
}

@Suite struct CancelingTests {
    /// `d` on a running download: after the task completes it still shows canceling until its
    /// resume data arrives, and never longer than the patience.
    @Test func cancelingLastsUntilTheResumeDataArrives() {
        var m = Fixtures.model(width: 120, height: 40)
        let id = TaskID(session: 1, task: 1)
        m.selectedTask = id
        (m, _) = Reducer.reduce(m, .cancelWithResumeData)
        #expect(m.awaitingResumeData.keys.contains(id))
        var sessions = Fixtures.sessions()
        sessions[0].tasks[0].state = .completed
        sessions[0].tasks[0].error = TransferError(.cancelled, "cancelled")
        m.apply(sessions, at: 2)
        #expect(DisplayState(m.selectedTaskSnapshot!) == .canceling)
        m.now = m.now.addingTimeInterval(1)
        m.apply(sessions, at: 3)
        #expect(DisplayState(m.selectedTaskSnapshot!) == .canceling)
        m.resumeDataAvailable = [id]
        m.apply(sessions, at: 4)
        #expect(DisplayState(m.selectedTaskSnapshot!) == .cancelled && m.awaitingResumeData.isEmpty)

        // No resume data ever: canceling ends after the patience.
        var n = Fixtures.model(width: 120, height: 40)
        n.selectedTask = id
        (n, _) = Reducer.reduce(n, .cancelWithResumeData)
        n.apply(sessions, at: 2)
        n.now = n.now.addingTimeInterval(MonitorModel.resumeDataPatience + 0.5)
        n.apply(sessions, at: 3)
        #expect(DisplayState(n.selectedTaskSnapshot!) == .cancelled)
    }
}

@Suite struct CalmNumbersTests {
    /// 64 KiB chunks every half second, sampled every 0.1 s: once the window is full the
    /// speed stays within a few percent of 128 KiB/s (it flipped between two values before).
    @Test func speedHoldsStillUnderChunkyArrivals() {
        var m = SpeedMeter()
        var speeds: [Double] = []
        for step in 0...200 {
            let t = Double(step) / 10
            m.record(bytes: Int64(step / 5) * 65536, at: t)
            if t >= 6 { speeds.append(m.bytesPerSecond) }
        }
        let (lo, hi) = (speeds.min()!, speeds.max()!)
        #expect(hi / lo < 1.15, "\(lo) ... \(hi)")
        #expect(abs(speeds.last! - 131_072) / 131_072 < 0.1)
    }

    /// A task resumed after a pause finds data buffered in the socket: no spike.
    @Test func noSpikeAfterResume() {
        var rates = TransferRates()
        var s = Fixtures.sessions()
        let i = 0  // task 1.1
        var bytes: Int64 = 0
        func record(_ state: TaskState, _ t: Double) {
            s[0].tasks[i].state = state
            s[0].tasks[i].countOfBytesReceived = bytes
            rates.record(s, at: t)
        }
        for step in 0...50 { bytes += 10_000; record(.running, Double(step) / 10) }  // 100 KB/s
        for step in 51...100 { record(.suspended, Double(step) / 10) }
        bytes += 2_000_000  // buffered during the pause, read at once on resume
        record(.running, 10.1)
        for step in 102...110 { bytes += 10_000; record(.running, Double(step) / 10) }
        #expect(rates.speed(of: TaskID(session: 1, task: 1)) < 600_000)
    }

    @Test func headerHasTheOverallProgress() {
        let m = Fixtures.model(width: 200, height: 60)
        let header = ScreenRenderer.render(m).rowText(0)
        #expect(header.contains("of") || header.contains("%"), "\(header)")
        #expect(header.contains("ETA"), "\(header)")
    }
}

@Suite struct ConfirmationTests {
    func model(selecting id: TaskID) -> MonitorModel {
        var m = Fixtures.model(width: 120, height: 40)
        m.selectedTask = id
        return m
    }

    @Test func cancelAsksFirstAndYPerformsIt() {
        let id = TaskID(session: 1, task: 4)  // running, not resumable
        var (m, effect) = Reducer.handleKey(model(selecting: id), .char("c"))
        #expect(effect == nil)
        #expect(m.confirmation?.question.hasPrefix("cancel task 1.4? Its progress is lost.") == true)
        Golden.check(ScreenRenderer.render(m).rowText(m.height - 2), "confirm-cancel-status")
        (m, effect) = Reducer.handleKey(m, .char("y"))
        #expect(effect == .cancel(id) && m.confirmation == nil)
    }

    @Test func anyOtherKeySaysNo() {
        var (m, _) = Reducer.handleKey(model(selecting: TaskID(session: 1, task: 4)), .char("c"))
        var effect: Effect?
        (m, effect) = Reducer.handleKey(m, .char("n"))
        #expect(effect == nil && m.confirmation == nil && m.statusMessage == "nothing done")
    }

    @Test func yesFlagSkipsTheQuestion() {
        var m = model(selecting: TaskID(session: 1, task: 4))
        m.confirmDestructive = false
        let (_, effect) = Reducer.handleKey(m, .char("c"))
        #expect(effect == .cancel(TaskID(session: 1, task: 4)))
    }

    @Test func quitAsksOnlyWhenWorkWouldBeLost() {
        let (m, effect) = Reducer.handleKey(model(selecting: TaskID(session: 1, task: 1)), .char("q"))
        #expect(effect == nil)
        // 1.2 (suspended), 1.4, 1.6 (not resumable) and the queued 3.2 (nothing to keep yet).
        #expect(m.confirmation?.question.hasPrefix("quit? 4 tasks cannot be resumed and are lost") == true, "\(String(describing: m.confirmation))")
        var only = Fixtures.model(width: 120, height: 40)
        only.apply([SessionSnapshot(id: 1, name: "d", kind: .default, state: .active, maxConnectionsPerHost: 6,
                                    tasks: [Fixtures.sessions()[0].tasks[0]])], at: 2)
        #expect(Reducer.handleKey(only, .char("q")).1 == .quit)  // a resumable download keeps its data
    }
}

@Suite struct SortTests {
    @Test func sortCyclesAndTheSelectionFollowsItsTask() {
        var m = Fixtures.model(width: 120, height: 40)
        m.selectedTask = TaskID(session: 2, task: 2)
        func order(_ m: MonitorModel) -> [String] { let l = TaskList(m); return (0..<l.count).map { l[$0].id.description } }
        (m, _) = Reducer.handleKey(m, .char("o"))
        #expect(m.sort == .state)
        #expect(order(m) == ["3.2", "1.1", "1.4", "1.6", "1.2", "2.1", "1.3", "2.2", "2.3", "3.1"])
        #expect(m.selectedTask == TaskID(session: 2, task: 2))
        (m, _) = Reducer.handleKey(m, .function(6))
        #expect(m.sort == .progress && order(m).first == "1.3")
        (m, _) = Reducer.handleKey(m, .char("o"))
        #expect(m.sort == .speed && order(m).first == "1.1")
        (m, _) = Reducer.handleKey(m, .char("o"))
        #expect(m.sort == .ttfb && order(m).first == "1.6")  // still waiting: 250 ms and counting
        (m, _) = Reducer.handleKey(m, .char("o"))
        #expect(m.sort == .name)
        m.filter = "completed"
        #expect(order(m) == ["3.1", "2.2", "1.3", "2.3"])  // big.bin, missing, small.json, nowhere
        Golden.check(ScreenRenderer.render(m).render(), "round2-120x40-sorted-filtered")
        (m, _) = Reducer.handleKey(m, .char("o"))
        #expect(m.sort == .none)
    }
}

@Suite struct SparklineTests {
    @Test func sparklineScalesToItsLargestValue() {
        #expect(Sparkline.text([0, 1, 2, 4, 8], width: 5, utf8: true) == "▁▂▃▅█")
        #expect(Sparkline.text([0, 1, 2, 4, 8], width: 3, utf8: false) == ":=#")
        #expect(Sparkline.text([], width: 4, utf8: true) == "")
    }

    @Test func sessionsHaveASpeedHistoryOncePerSecond() {
        var rates = TransferRates()
        var s = Fixtures.sessions()
        for step in 0...40 {
            s[0].tasks[0].countOfBytesReceived = Int64(step * step) * 1000
            rates.record(s, at: Double(step) / 4)
        }
        #expect(rates.sessionHistory[1]?.count == 11)  // 0 s ... 10 s
        let history = rates.sessionHistory[1]!
        #expect(history.last! > history[2])  // accelerating
    }
}

@Suite struct StatusExpiryTests {
    @Test func aStatusMessageGoesAfterItsLifetime() {
        var m = Fixtures.model(width: 80, height: 24)
        m.statusMessage = "theme: light"
        m.expireStatusMessage()
        m.now = m.now.addingTimeInterval(MonitorModel.statusLifetime - 1)
        m.expireStatusMessage()
        #expect(m.statusMessage == "theme: light")
        m.now = m.now.addingTimeInterval(2)
        m.expireStatusMessage()
        #expect(m.statusMessage == nil)
        m.statusMessage = "task 1.1 added"  // a new message starts its own lifetime
        m.expireStatusMessage()
        #expect(m.statusMessage == "task 1.1 added")
    }
}
