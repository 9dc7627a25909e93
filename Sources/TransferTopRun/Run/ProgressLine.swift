import Foundation
import TransferKit
import TransferTopUI

/// Line mode's progress (DECISIONS 64): on a terminal one line redrawn in place as
/// curl's meter; into a pipe nothing, or with `--progress` a plain line a second. Pure text
/// here; `LineProgress` times it and `LineBuffer` writes it.
public enum ProgressLine {
    /// `progress: 3 done, 2 running  12.0 MiB  1.2 MiB/s  ETA 8s`: tasks finished and running,
    /// bytes moved in the run, the speed over the last 5 s (the monitor's window), and the
    /// running tasks' remaining bytes at that speed, in the monitor's one ETA format. ASCII
    /// only: it goes to dumb terminals and logs too.
    public static func text(finished: Int, running: [TaskSnapshot], bytes: Int64, speed: Double) -> String {
        var remaining: Int64 = 0, known = true
        for t in running {
            let (done, expected) = TransferRates.progress(t)
            if expected > 0 { remaining += Swift.max(0, expected - done) } else { known = false }
        }
        let eta = Units.eta(known && speed > 0 ? Double(remaining) / speed : (running.isEmpty ? 0 : nil))
        return "progress: \(finished) done, \(running.count) running  \(Units.bytes(bytes))  \(Units.speed(speed))  ETA \(eta)"
    }

    /// The bytes that redraw the line in place: back to column 0, the new text, blanks over
    /// what is left of the old one. Carriage return and spaces only, never an escape
    /// sequence, so TERM=dumb is served too. `text` must already fit the terminal: a line
    /// that wraps cannot be redrawn with `\r`.
    public static func redraw(_ text: String, previousWidth: Int) -> String {
        let width = DisplayWidth.of(text)
        let pad = Swift.max(0, previousWidth - width)
        return "\r" + text + String(repeating: " ", count: pad)
    }

    /// Blanks the line and leaves the cursor at its start, for a state line or the end.
    public static func clear(previousWidth: Int) -> String {
        previousWidth > 0 ? "\r" + String(repeating: " ", count: previousWidth) + "\r" : ""
    }

    /// `text` cut to `columns - 1` (the last column would wrap on some terminals).
    public static func fit(_ text: String, columns: Int) -> String {
        TextFit.truncate(text, Swift.max(1, columns - 1), ellipsis: "")
    }
}
