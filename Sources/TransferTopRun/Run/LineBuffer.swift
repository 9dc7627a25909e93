import Foundation
import TransferKit
import TransferTopUI

/// Line mode's state-change lines, written in batches: a 100,000-URL run prints
/// 200,000 lines, one `write(2)` each was a tenth of its CPU. Flushed at 64 KiB, every 100 ms
/// by a timer (so a pipe still sees lines promptly), and before anything else is printed.
///
/// On a terminal it also owns the progress line (`ProgressLine`): every batch of lines
/// first blanks it and then draws it again below them, so lines and meter never mix.
final class LineBuffer: @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock; `timer` is set in init.
    private let out: Output
    private struct State {
        var pending = ""
        /// The progress line as drawn now (nil: none on screen) and its width.
        var status: String?
        var statusWidth = 0
    }
    private let state = Locked(State())
    private var timer: DispatchSourceTimer?

    init(_ out: Output) {
        self.out = out
        let t = DispatchSource.makeTimerSource(queue: .global())
        t.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        t.setEventHandler { [weak self] in self?.flush() }
        t.resume()
        timer = t
    }

    func line(_ text: String) {
        state.withLock { s in
            s.pending += text
            s.pending += "\n"
            guard s.pending.utf8.count >= 64 * 1024 else { return }
            write(&s)  // under the lock: batches stay in order
        }
    }

    func flush() {
        // Under the lock, so batches reach stdout in order.
        state.withLock { s in if !s.pending.isEmpty { write(&s) } }
    }

    /// Draws `text` as the progress line (a terminal only), replacing the one shown.
    func status(_ text: String) {
        state.withLock { s in
            if !s.pending.isEmpty { write(&s) }
            out.write(ProgressLine.redraw(text, previousWidth: s.statusWidth), fd: STDOUT_FILENO)
            s.status = text
            s.statusWidth = DisplayWidth.of(text)
        }
    }

    /// Blanks the progress line for good (the end of the run, an interruption message).
    func clearStatus() {
        state.withLock { s in
            if !s.pending.isEmpty { write(&s) }
            out.write(ProgressLine.clear(previousWidth: s.statusWidth), fd: STDOUT_FILENO)
            s.status = nil
            s.statusWidth = 0
        }
    }

    /// The pending lines, with the progress line blanked before them and drawn after them.
    private func write(_ s: inout State) {
        guard let status = s.status else {
            out.write(s.pending, fd: STDOUT_FILENO)
            s.pending = ""
            return
        }
        out.write(ProgressLine.clear(previousWidth: s.statusWidth) + s.pending + status, fd: STDOUT_FILENO)
        s.pending = ""
    }

    /// Stops the timer after a last flush, leaving no progress line behind.
    func close() {
        timer?.cancel()
        clearStatus()
    }
}
