import Foundation
import TransferKit
import TransferTopUI

/// Line mode's text: pure functions of snapshots, golden-testable.
public enum LineFormat {
    /// `12:03:04.567 default 1.2 running http://host/x 1.5 MiB 200` (+ ` error: …` when failed).
    public static func line(_ t: TaskSnapshot, at date: Date, color: Bool) -> String {
        let state = DisplayState(t)
        // Built as bytes in one buffer sized once, numbers written as digits (no String per
        // field): two lines per URL of a long list, where a string appended field by field
        // cost twice as many instructions, and the fields' Strings as many again.
        // Server- and file-supplied text is escaped (TerminalText); the colour codes are ours.
        let url = TerminalText.safe(Redaction.redactURL(t.currentURL))
        var out: [UInt8] = []
        out.reserveCapacity(96 + t.sessionName.utf8.count + url.utf8.count + (t.outputPath?.utf8.count ?? 0))
        appendTimestamp(date, to: &out)
        out.append(0x20)
        ByteText.append(TerminalText.safe(t.sessionName), to: &out)
        out.append(0x20)
        ByteText.appendInteger(t.id.session, to: &out)
        out.append(UInt8(ascii: "."))
        ByteText.appendInteger(t.id.task, to: &out)
        out.append(0x20)
        appendState(t, state, color, to: &out)
        out.append(0x20)
        ByteText.append(url, to: &out)
        out.append(0x20)
        Units.appendBytes(TransferRates.progressBytes(t), to: &out)
        out.append(0x20)
        if let code = t.statusCode { ByteText.appendInteger(code, to: &out) } else { out.append(UInt8(ascii: "-")) }
        if let e = t.error, state != .cancelled {
            ByteText.append(" error: ", to: &out)
            ByteText.append(TerminalText.safe(Redaction.redactText(e.message)), to: &out)
        }
        if let path = t.outputPath {
            ByteText.append(" -> ", to: &out)
            ByteText.append(TerminalText.safe(path), to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `DisplayState.text(t)` in its colour (`paint`), written into `out`.
    static func appendState(_ t: TaskSnapshot, _ state: DisplayState, _ color: Bool, to out: inout [UInt8]) {
        if color {
            ByteText.append("\u{1B}[", to: &out)
            ByteText.append(colorCode(state), to: &out)
            out.append(UInt8(ascii: "m"))
        }
        ByteText.append(state.label, to: &out)
        if let outcome = state.outcome(t) {
            out.append(0x20)
            ByteText.append(outcome, to: &out)
        }
        if color { ByteText.append("\u{1B}[0m", to: &out) }
    }

    /// `HH:MM:SS.mmm`, local time.
    static func appendTimestamp(_ date: Date, to out: inout [UInt8]) {
        let secs = time_t(date.timeIntervalSince1970)
        let ms = min(max(Int((date.timeIntervalSince1970 - Double(secs)) * 1000), 0), 999)
        ByteText.append(clock(secs), to: &out)
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(ms / 100))
        out.append(UInt8(ascii: "0") + UInt8(ms / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(ms % 10))
    }

    /// `HH:MM:SS` of the local time, worked out once per second: `localtime_r` takes a lock
    /// and looks at the time zone on every call, and a list of small files has thousands of
    /// lines per second.
    static func clock(_ secs: time_t) -> String {
        if let text = lastClock.withLock({ $0.secs == secs ? $0.text : nil }) { return text }
        var tm = tm()
        var t = secs
        localtime_r(&t, &tm)
        // By hand: String(format:) went through NSString for every line.
        let text = pad(Int(tm.tm_hour), 2) + ":" + pad(Int(tm.tm_min), 2) + ":" + pad(Int(tm.tm_sec), 2)
        lastClock.withLock { $0 = (secs, text) }
        return text
    }

    /// The last second worked out (none yet: no real time is `Int.min`).
    private static let lastClock = Locked<(secs: time_t, text: String)>((time_t.min, ""))

    static func pad(_ n: Int, _ width: Int) -> String {
        let digits = String(n)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    static func colorCode(_ state: DisplayState) -> String {
        switch state {
        case .queued: return "2"
        case .running: return "36"
        case .suspended: return "33"
        case .canceling, .cancelled: return "35"
        case .completed: return "32"
        case .httpError, .failed: return "31"
        }
    }

    /// The final table: one row per task, then a one-line total.
    public static func summary(_ tasks: [TaskSnapshot], succeeded: (TaskSnapshot) -> Bool) -> String {
        var text: [UInt8] = []
        summaryTable(tasks, succeeded: succeeded) { text.append(contentsOf: $0) }
        if text.last == 0x0A { text.removeLast() }
        return String(decoding: text, as: UTF8.self)
    }

    /// The same table as bytes, handed to `write` in chunks of about 64 KiB, each ending with a
    /// whole line: a 100,000-row table is never one string. The table is made after the last
    /// download, so its time is the run's: each row's six short cells are made once (the first
    /// pass keeps them for the widths), and every row goes into the chunk as bytes.
    public static func summaryTable(_ tasks: [TaskSnapshot], succeeded: (TaskSnapshot) -> Bool,
                                    write: ([UInt8]) -> Void) {
        let header = ["ID", "SESSION", "STATE", "STATUS", "BYTES", "TIME", "URL / FILE"]
        let short = header.count - 1
        var widths = header.map(\.count)
        // Cells of at most 15 bytes (all but a long session name) live inside their String,
        // so the kept cells are one allocation for the whole table.
        var cells: [String] = []
        cells.reserveCapacity(short * tasks.count)
        for t in tasks {
            for (i, f) in shortCells(t).enumerated() {
                widths[i] = max(widths[i], width(f))
                cells.append(f)
            }
        }
        let chunkSize = 64 * 1024
        var out: [UInt8] = []
        out.reserveCapacity(chunkSize + 4096)
        func row(_ short: ArraySlice<String>, _ last: String) {
            // Indices, not zip: the first Zip2Sequence over a slice made the runtime look up a
            // conformance, a scan of every record (DECISIONS 195).
            for i in short.indices {
                let f = short[i]
                let column = i - short.startIndex
                if isASCII(f), f.utf8.count <= widths[column] {
                    out.append(contentsOf: f.utf8)
                    out.append(contentsOf: repeatElement(0x20, count: widths[column] - f.utf8.count))
                } else {
                    out.append(contentsOf: pad(f, to: widths[column]).utf8)
                }
                out.append(0x20)
                out.append(0x20)
            }
            out.append(contentsOf: last.utf8)
            out.append(0x0A)
            if out.count >= chunkSize {
                write(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        row(header[..<short], header[short])
        var ok = 0
        for (n, t) in tasks.enumerated() {
            row(cells[(n * short)..<((n + 1) * short)], lastCell(t))
            if succeeded(t) { ok += 1 }
        }
        out.append(contentsOf: totalLine(tasks, ok: ok).utf8)
        out.append(0x0A)
        write(out)
    }

    /// The summary's last line: `3 tasks: 2 succeeded, 1 did not (ok 2, …)`.
    public static func totalLine(_ tasks: [TaskSnapshot], succeeded: (TaskSnapshot) -> Bool) -> String {
        totalLine(tasks, ok: tasks.count { succeeded($0) })
    }

    static func totalLine(_ tasks: [TaskSnapshot], ok: Int) -> String {
        let counts = StateCounts(tasks)
        return "\(Units.count(tasks.count, "task")): \(ok) succeeded, \(tasks.count - ok) did not"
            + " (ok \(counts[.completed]), HTTP error \(counts[.httpError]), error \(counts[.failed]), cancelled \(counts[.cancelled]))"
    }

    /// A field's width in the table: its characters (an ASCII field's bytes, counted without
    /// walking graphemes: the table of a 5,000-URL run is built after the last download, so
    /// its time is the run's).
    static func width(_ f: String) -> Int { isASCII(f) ? f.utf8.count : f.count }

    /// `f` padded with spaces to `width`, as `padding(toLength:withPad:startingAt:)` (which
    /// counts UTF-16 units and cuts a longer field), without NSString for ASCII fields.
    static func pad(_ f: String, to width: Int) -> String {
        guard isASCII(f) else { return f.padding(toLength: width, withPad: " ", startingAt: 0) }
        let n = f.utf8.count
        if n >= width { return n == width ? f : String(f.utf8.prefix(width))! }
        return f + String(repeating: " ", count: width - n)
    }

    static func isASCII(_ f: String) -> Bool { !f.utf8Contains { $0 >= 0x80 } }

    /// ID, session, state, status, bytes and time: the cells the table pads to their columns.
    static func shortCells(_ t: TaskSnapshot) -> [String] {
        let duration = t.metrics.taskIntervalEnd.map { $0.timeIntervalSince(t.metrics.taskIntervalStart) }
        return [t.id.description, TerminalText.safe(t.sessionName), DisplayState.text(t), t.statusCode.map(String.init) ?? "-",
                Units.bytes(TransferRates.progressBytes(t)), duration.map { Units.millis($0 * 1000) } ?? "-"]
    }

    /// The file (or URL). A task that failed says why after it, as its line did: the table is
    /// what is left on the screen at the end, and `completed error` alone sent users back up
    /// the scroll.
    static func lastCell(_ t: TaskSnapshot) -> String {
        var last = TerminalText.safe(t.outputPath ?? Redaction.redactURL(t.currentURL))
        if DisplayState(t) == .failed, let e = t.error { last += "  error: " + TerminalText.safe(Redaction.redactText(e.message)) }
        return last
    }
}
