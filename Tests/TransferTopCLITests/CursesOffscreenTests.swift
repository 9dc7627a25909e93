import CNcurses
import Foundation
import Testing
import TransferModel
@testable import TransferTopCLI
import TransferTopUI

/// STYLE 10: the real ncurses path, off-screen. A fixed model is rendered by the pure
/// `ScreenRenderer`, flushed through `CursesScreen` (the monitor's own backend) into an
/// ncurses terminal that writes to /dev/null, and ncurses' virtual screen is read back cell by
/// cell. The golden is the pure render of the same model: the test proves the flush is
/// faithful (wide, box-drawing and block characters, styles, and the diff flush of a second
/// frame). ncurses is one global state per process, hence `.serialized`.
@Suite(.serialized) struct CursesOffscreenTests {
    static let terminal = "xterm-256color"
    static let environment = ["TERM": terminal]

    /// An off-screen screen of the given size with the default theme applied.
    static func screen(columns: Int, lines: Int) throws -> CursesScreen {
        let screen = try #require(CursesScreen(offscreen: terminal, lines: lines, columns: columns, environment: environment),
                                  "newterm(\(terminal)) on /dev/null failed")
        #expect(screen.size.width == columns && screen.size.height == lines)
        screen.apply(Theme.builtInDefault.resolved(depth: screen.depth))
        return screen
    }

    /// Every cell read back equals the grid's: text, wide-character halves and style.
    static func expectFaithful(_ screen: CursesScreen, _ grid: CellGrid, except skipped: Set<[Int]> = [],
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let cells = screen.readBack(.physical)
        #expect(cells.count == grid.height && cells.allSatisfy { $0.count == grid.width }, sourceLocation: sourceLocation)
        guard cells.count == grid.height, cells.allSatisfy({ $0.count == grid.width }) else { return }
        var mismatches: [String] = []
        for y in 0..<grid.height {
            for x in 0..<grid.width where !skipped.contains([x, y]) {
                let want = grid[x, y], got = cells[y][x]
                if want.isContinuation != got.isContinuation || (!want.isContinuation && want.grapheme != got.text) {
                    mismatches.append("(\(x),\(y)) text \(want.grapheme.debugDescription) got \(got.text.debugDescription)"
                                      + " continuation \(want.isContinuation)/\(got.isContinuation)")
                    continue
                }
                if want.isContinuation { continue }
                let i = want.role.index
                let wantPair = Int16(truncatingIfNeeded: screen.pairs[i] >> 8)
                if got.attributes != screen.attributes[i] || got.pair != wantPair {
                    mismatches.append("(\(x),\(y)) role \(want.role) attr \(got.attributes) pair \(got.pair)"
                                      + ", want attr \(screen.attributes[i]) pair \(wantPair)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) cells differ:\n\(mismatches.prefix(20).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: [(80, 24), (40, 10), (120, 40)])
    func firstFrameReadsBackAsThePureRender(width: Int, height: Int) throws {
        let screen = try Self.screen(columns: width, lines: height)
        defer { screen.end() }
        let grid = ScreenRenderer.render(OffscreenFixture.model(width: width, height: height))
        screen.flush(grid)
        #expect(screen.readBackText(.physical) == grid.render())
        #expect(screen.readBackText(.drawn) == grid.render())
        Self.expectFaithful(screen, grid)
    }

    /// The selected task has a CJK URL: wide characters in the task list and the detail pane.
    @Test(arguments: [(80, 24), (40, 10)])
    func wideCharactersKeepTheirColumns(width: Int, height: Int) throws {
        let screen = try Self.screen(columns: width, lines: height)
        defer { screen.end() }
        var model = OffscreenFixture.model(width: width, height: height)
        model.selectedTask = OffscreenFixture.wideTask
        let grid = ScreenRenderer.render(model)
        #expect(grid.cells.contains { $0.isContinuation }, "the fixture must draw wide characters")
        screen.flush(grid)
        #expect(screen.readBackText() == grid.render())
        Self.expectFaithful(screen, grid)
    }

    /// A second frame after one task's bytes change: CursesScreen redraws only the changed
    /// runs. Sentinels poked into ncurses between the frames, in cells the diff does not cover,
    /// must survive the flush (a full redraw would erase them); everything else must read back
    /// as the new pure render.
    @Test(arguments: [(80, 24), (40, 10)])
    func secondFrameRewritesOnlyWhatChanged(width: Int, height: Int) throws {
        let screen = try Self.screen(columns: width, lines: height)
        defer { screen.end() }
        var model = OffscreenFixture.model(width: width, height: height)
        model.selectedTask = OffscreenFixture.wideTask
        let first = ScreenRenderer.render(model)
        screen.flush(first)
        Self.expectFaithful(screen, first)

        // Only the selected task's bytes (1 MiB -> 4 MiB of 8: its bar and percentage, beside
        // its wide URL, and the detail pane's totals at 80 columns).
        model.sessions[0].tasks[4].countOfBytesReceived = 4 * OffscreenFixture.mib
        let second = ScreenRenderer.render(model)
        let runs = second.diff(from: first)
        #expect(!runs.isEmpty && runs.count < height, "a small change must be a few runs, got \(runs.count)")
        var covered = Set<[Int]>()
        for run in runs { for x in run.column..<(run.column + run.cells.count) { covered.insert([x, run.row]) } }
        #expect(covered.count < width * height / 4)

        // Sentinels on narrow, unchanged cells: the top-left corner, the bottom row, and one
        // beside the first changed run on its own row.
        var sentinels: [[Int]] = [[0, 0], [width - 2, height - 1]]
        if let run = runs.first { sentinels.append([run.column + run.cells.count < width - 1 ? width - 1 : 0, run.row]) }
        sentinels = sentinels.filter { !covered.contains($0) && !first[$0[0], $0[1]].isContinuation
            && !($0[0] + 1 < width && first[$0[0] + 1, $0[1]].isContinuation) }
        #expect(!sentinels.isEmpty)
        for s in sentinels { _ = mvaddstr(Int32(s[1]), Int32(s[0]), "#") }
        _ = refresh()

        screen.flush(second)
        let cells = screen.readBack(.physical)
        for s in sentinels { #expect(cells[s[1]][s[0]].text == "#", "sentinel at \(s) was redrawn") }
        Self.expectFaithful(screen, second, except: Set(sentinels))
        var expected = second
        for s in sentinels { expected[s[0], s[1]] = Cell("#") }
        #expect(screen.readBackText() == expected.render())
    }

    /// A resize-like invalidate redraws everything: the sentinels are gone.
    @Test func invalidateRedrawsEverything() throws {
        let screen = try Self.screen(columns: 80, lines: 24)
        defer { screen.end() }
        let grid = ScreenRenderer.render(OffscreenFixture.model(width: 80, height: 24))
        screen.flush(grid)
        _ = mvaddstr(0, 0, "#")
        _ = mvaddstr(23, 78, "#")
        _ = refresh()
        screen.invalidate()
        screen.flush(grid)
        #expect(screen.readBackText() == grid.render())
        Self.expectFaithful(screen, grid)
    }

    /// endwin + delscreen leave nothing behind: the locale is back, and a second off-screen
    /// terminal in the same process (of another size) works from a clean state.
    @Test func endLeavesNoStateBehind() throws {
        let locale = setlocale(LC_ALL, nil).map { String(cString: $0) }
        for (width, height) in [(80, 24), (40, 10), (80, 24)] {
            let screen = try Self.screen(columns: width, lines: height)
            let grid = ScreenRenderer.render(OffscreenFixture.model(width: width, height: height))
            // A fresh screen is blank: nothing of the previous one's frame survives.
            #expect(screen.readBackText().allSatisfy { $0 == "\n" })
            screen.flush(grid)
            #expect(screen.readBackText() == grid.render())
            screen.end()
            screen.end()  // idempotent
            #expect(tt_stdscr() == nil, "delscreen must leave no current screen")
            #expect(setlocale(LC_ALL, nil).map { String(cString: $0) } == locale)
        }
    }

    /// An emoji with VS16 (U+FE0F) must take the columns ncurses gives it (glibc's wcwidth: the
    /// base character's width); DisplayWidth once said 2, and ncurses then drew the rest of the
    /// row one column left of the grid. The row's text is the same either way, so only the
    /// cell-by-cell check sees it.
    @Test func emojiPresentationSelectorWidthMatchesNcurses() throws {
        let screen = try Self.screen(columns: 20, lines: 2)
        defer { screen.end() }
        var grid = CellGrid(width: 20, height: 2)
        grid.write("a\u{2764}\u{FE0F}b end", column: 0, row: 0)
        screen.flush(grid)
        #expect(screen.readBackText() == grid.render())
        Self.expectFaithful(screen, grid)
    }

    @Test func unknownTerminalFailsCleanly() {
        let locale = setlocale(LC_ALL, nil).map { String(cString: $0) }
        #expect(CursesScreen(offscreen: "no-such-terminal-xyz", lines: 24, columns: 80, environment: [:]) == nil)
        #expect(setlocale(LC_ALL, nil).map { String(cString: $0) } == locale)
    }
}

/// The monitor fixture of TransferTopUITests (three sessions, tasks in every state, a 3-hop
/// redirect chain), plus a task with a CJK URL for wide characters.
enum OffscreenFixture {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let mib: Int64 = 1 << 20
    static let wideTask = TaskID(session: 1, task: 5)

    static func at(_ ms: Double) -> Date { t0.addingTimeInterval(ms / 1000) }

    static func threeHopMetrics() -> TaskMetrics {
        let hop1 = TransactionMetrics(
            method: "GET", url: "http://example.test/get", statusCode: 301, fetchStartDate: at(0), queueEndDate: at(0),
            domainLookupStartDate: at(0), domainLookupEndDate: at(20), connectStartDate: at(20), connectEndDate: at(40),
            requestStartDate: at(40), requestEndDate: at(45), responseStartDate: at(95), responseEndDate: at(100),
            networkProtocolName: "http/1.1", currentPhase: .done)
        let hop2 = TransactionMetrics(
            method: "GET", url: "https://example.test/get", statusCode: 302, fetchStartDate: at(100), queueEndDate: at(100),
            domainLookupStartDate: at(100), domainLookupEndDate: at(110), connectStartDate: at(110), connectEndDate: at(180),
            secureConnectionStartDate: at(130), secureConnectionEndDate: at(180),
            requestStartDate: at(180), requestEndDate: at(185), responseStartDate: at(235), responseEndDate: at(240),
            networkProtocolName: "h2", currentPhase: .done)
        let hop3 = TransactionMetrics(
            method: "GET", url: "https://example.test/files/big.iso",
            requestHeaders: [HTTPHeader("Authorization", "Bearer s3cr3t"), HTTPHeader("Accept", "*/*")],
            statusCode: 200, responseHeaders: [HTTPHeader("Content-Type", "application/octet-stream"), HTTPHeader("Set-Cookie", "id=abc")],
            fetchStartDate: at(240), queueEndDate: at(240), requestStartDate: at(240), requestEndDate: at(250),
            responseStartDate: at(300), responseEndDate: nil, networkProtocolName: "h2",
            isReusedConnection: true, currentPhase: .receive)
        return TaskMetrics(taskIntervalStart: t0, taskIntervalEnd: nil, redirectCount: 2, transactionMetrics: [hop1, hop2, hop3])
    }

    static func task(_ session: Int, _ id: Int, _ state: TaskState, url: String, kind: TaskKind = .download,
                     received: Int64 = 0, expected: Int64 = -1, status: Int? = nil, proto: String? = nil,
                     error: TransferError? = nil, resumable: Bool = false, metrics: TaskMetrics? = nil) -> TaskSnapshot {
        TaskSnapshot(sessionID: session, sessionName: "s\(session)", taskIdentifier: id, kind: kind, state: state,
                     originalURL: url, countOfBytesReceived: received, countOfBytesExpectedToReceive: expected,
                     statusCode: status, networkProtocolName: proto, metrics: metrics ?? TaskMetrics(taskIntervalStart: t0),
                     error: error, isResumable: resumable)
    }

    static func sessions() -> [SessionSnapshot] {
        [
            SessionSnapshot(id: 1, name: "downloads", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: [
                task(1, 1, .running, url: "http://example.test/get", received: 50 * mib, expected: 100 * mib, status: 200,
                     proto: "h2", resumable: true, metrics: threeHopMetrics()),
                task(1, 2, .suspended, url: "https://example.test/slow", received: 3 * mib, expected: 12 * mib, status: 200, proto: "http/1.1"),
                task(1, 3, .completed, url: "https://example.test/small.json", kind: .data, received: 2048, expected: 2048, status: 200, proto: "h2"),
                task(1, 4, .running, url: "https://example.test/stream", received: 5 * mib, status: 200, proto: "http/1.1"),
                task(1, 5, .running, url: "https://例え.test/文件/データ.bin", received: 1 * mib, expected: 8 * mib, status: 200, proto: "h2"),
            ]),
            SessionSnapshot(id: 2, name: "ephemeral-api", kind: .ephemeral, state: .invalidating, maxConnectionsPerHost: 6, tasks: [
                task(2, 1, .canceling, url: "https://user:pw@example.test/private", kind: .data, received: 100, expected: 1000),
                task(2, 2, .completed, url: "https://example.test/missing", kind: .data, status: 404, proto: "http/1.1"),
                task(2, 3, .completed, url: "https://nowhere.invalid/", kind: .data,
                     error: TransferError(.cannotFindHost, "cannot find host nowhere.invalid")),
            ]),
            SessionSnapshot(id: 3, name: "limited", kind: .default, state: .invalidated, maxConnectionsPerHost: 1, tasks: [
                task(3, 1, .completed, url: "https://example.test/big.bin", received: 7 * mib, expected: 20 * mib,
                     error: TransferError(.cancelled, "cancelled"), resumable: true),
            ]),
        ]
    }

    static func events() -> [TransferEvent] {
        [
            TransferEvent(date: at(0), sessionID: 1, taskIdentifier: nil, kind: .sessionCreated),
            TransferEvent(date: at(1), sessionID: 1, taskIdentifier: 1, kind: .taskStateChanged(.running)),
            TransferEvent(date: at(100), sessionID: 1, taskIdentifier: 1, kind: .delegateCallback("willPerformHTTPRedirection"), detail: "301"),
            TransferEvent(date: at(300), sessionID: 1, taskIdentifier: 1, kind: .delegateCallback("didReceiveResponse"), detail: "200 OK"),
            TransferEvent(date: at(350), sessionID: 2, taskIdentifier: nil, kind: .sessionStateChanged(.invalidating)),
        ]
    }

    /// Speeds from two samples one second apart, the detail pane shown.
    static func model(width: Int, height: Int) -> MonitorModel {
        var m = MonitorModel()
        m.width = width
        m.height = height
        m.now = at(350)
        var first = sessions()
        for s in first.indices { for t in first[s].tasks.indices { first[s].tasks[t].countOfBytesReceived /= 2 } }
        m.apply(first, at: 0)
        m.apply(sessions(), at: 1)
        m.append(events())
        m.detailShown = true
        m.frameTimeMs = 1.25
        return m
    }
}
