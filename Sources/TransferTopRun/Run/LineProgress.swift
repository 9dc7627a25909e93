import Foundation
import Synchronization
import TransferKit
import TransferTopUI

/// Times line mode's progress (DECISIONS 64): on a terminal the line is redrawn every 500 ms
/// in place; into a pipe with `--progress` a plain line is printed every second. The bytes
/// come from the engine's progress events (so finished tasks that line mode retires still
/// count), the speed is the monitor's 5 s moving average over them.
final class LineProgress: @unchecked Sendable {
    // @unchecked: `meter` and `stopped` are only touched on `queue`; the rest is immutable
    // or atomic.
    enum Mode: Equatable {
        /// One line redrawn with `\r` (stdout is a terminal).
        case inPlace
        /// A plain line a second (`--progress` into a pipe or file).
        case periodic
    }

    let mode: Mode
    private let runner: Runner
    private let lines: LineBuffer
    private let bytes = Atomic<Int64>(0)
    private let queue = DispatchQueue(label: "transfertop.line-progress")
    private var meter = SpeedMeter()
    private var stopped = false
    private let timer: DispatchSourceTimer
    private let start = ContinuousClock.now

    /// The mode for this output: in place on a terminal, periodic lines only when asked.
    static func mode(isTerminal: Bool, progressFlag: Bool) -> Mode? {
        isTerminal ? .inPlace : (progressFlag ? .periodic : nil)
    }

    init(mode: Mode, runner: Runner, lines: LineBuffer) {
        self.mode = mode
        self.runner = runner
        self.lines = lines
        // The run's start is a sample (nothing moved yet), so the first line a second in
        // already has a speed and an ETA instead of "0 B/s  ETA --".
        meter.record(bytes: 0, at: 0)
        timer = DispatchSource.makeTimerSource(queue: queue)
        let interval: DispatchTimeInterval = mode == .inPlace ? .milliseconds(500) : .seconds(1)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
    }

    /// Bytes moved (an engine progress event; any thread).
    func add(_ n: Int64) { bytes.wrappingAdd(n, ordering: .relaxed) }

    private func tick() {
        guard !stopped else { return }
        let elapsed = ContinuousClock.now - start
        let total = bytes.load(ordering: .relaxed)
        meter.record(bytes: total, at: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let running = runner.snapshots().flatMap(\.tasks).filter { $0.state != .completed }
        let text = ProgressLine.text(finished: runner.finishedCount, running: running, bytes: total, speed: meter.bytesPerSecond)
        switch mode {
        case .inPlace: lines.status(ProgressLine.fit(text, columns: Self.columns()))
        case .periodic: lines.line(text)
        }
    }

    /// No tick runs after this returns (the caller then clears the line and prints the summary).
    func stop() {
        queue.sync {
            stopped = true
            timer.cancel()
        }
    }

    /// The terminal's width: the kernel's, else $COLUMNS, else 80.
    static func columns() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessEnvironment.value("COLUMNS").flatMap(Int.init) ?? 80
    }
}
