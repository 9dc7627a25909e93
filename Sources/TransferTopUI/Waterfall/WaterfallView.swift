import Foundation
import TransferModel

/// Draws waterfall hops as lines of spans: `label bar numbers`.
public enum WaterfallView {
    static let labelWidth = 8

    /// An axis line then one line per hop, each at most `width` columns.
    public static func lines(_ metrics: TaskMetrics, now: Date, width: Int, utf8: Bool, monochrome: Bool = false) -> [[Span]] {
        let hops = Waterfall.hops(metrics, now: now)
        guard !hops.isEmpty else { return [[Span("no transactions yet", .dim)]] }
        let scale = Waterfall.scaleMs(metrics, hops: hops, now: now)
        let bar = barWidth(for: width)
        return [axis(scale: scale, barWidth: bar)] + hops.map { line($0, scaleMs: scale, barWidth: bar, utf8: utf8, monochrome: monochrome) }
    }

    /// About a third of the width for the bar; the rest for label and numbers.
    public static func barWidth(for width: Int) -> Int {
        Swift.max(8, Swift.min(50, (width - labelWidth - 1) / 3))
    }

    static func axis(scale: Double, barWidth: Int) -> [Span] {
        let total = Units.millis(scale)
        let gap = Swift.max(1, barWidth - 1 - DisplayWidth.of(total))
        return [Span(TextFit.pad("", labelWidth + 1)), Span("0" + String(repeating: " ", count: gap) + total, .dim)]
    }

    public static func line(_ hop: WaterfallHop, scaleMs: Double, barWidth: Int, utf8: Bool, monochrome: Bool = false) -> [Span] {
        var spans = [Span(TextFit.pad(hop.label, labelWidth) + " ", hop.failed ? .error : .text)]
        spans += bar(hop, scaleMs: scaleMs, width: barWidth, utf8: utf8, monochrome: monochrome)
        if hop.isReused { spans.append(Span(" reused", .phaseMark)) }
        spans += numbers(hop, utf8: utf8)
        if hop.failed { spans.append(Span(" failed", .error)) }
        return spans
    }

    /// Exactly `width` cells. Any phase that took time gets at least one cell, so a 1 ms DNS
    /// lookup is still visible on a 10 s scale; the phases after it shift right to make room
    /// (the numbers beside the bar stay exact).
    public static func bar(_ hop: WaterfallHop, scaleMs: Double, width: Int, utf8: Bool, monochrome: Bool = false) -> [Span] {
        guard width > 0 else { return [] }
        var cells = Array(repeating: Span(" ", .text), count: width)
        var cursor = 0
        for s in hop.segments where s.durationMs > 0 || s.isRunning {
            let c0 = Swift.min(width - 1, Swift.max(cursor, column(s.startMs, scaleMs, width)))
            let c1 = Swift.min(width, Swift.max(c0 + 1, column(s.endMs, scaleMs, width)))
            let cell = s.isFailed ? Span(failedGlyph(utf8: utf8), .barError) : Span(glyph(s.phase, utf8: utf8, monochrome: monochrome), s.phase.role)
            for c in c0..<c1 { cells[c] = cell }
            cursor = c1
        }
        return merge(cells)
    }

    static func column(_ ms: Double, _ scaleMs: Double, _ width: Int) -> Int {
        Swift.max(0, NumericBounds.clampedInt((ms / scaleMs * Double(width)).rounded()))
    }

    /// `dns 12ms tcp 3ms …`; the phase a live hop is in is marked with ▶ (`>` in ASCII), the
    /// one a failed hop ended in with ✗ (`x`) in the error colour: `tls 25ms ✗`.
    static func numbers(_ hop: WaterfallHop, utf8: Bool) -> [Span] {
        hop.segments.filter { $0.durationMs > 0 || $0.isRunning || $0.isFailed }.map { s in
            if s.isFailed { return Span(" \(s.phase.label) \(Units.millis(s.durationMs)) \(failedMark(utf8: utf8))", .error) }
            let mark = s.isRunning && s.phase == hop.currentPhase ? (utf8 ? "▶" : ">") : ""
            return Span(" \(mark)\(s.phase.label) \(Units.millis(s.durationMs))", s.isRunning ? .phaseMark : s.phase.role)
        }
    }

    /// The failed phase's mark beside its time and in its table column.
    public static func failedMark(utf8: Bool) -> String { utf8 ? "✗" : "x" }

    /// The failed phase's cells: the failed progress bar's shade, which reads without colour.
    static func failedGlyph(utf8: Bool) -> String { utf8 ? "▒" : "x" }

    /// Colour carries the phase; without colour (NO_COLOR, the monochrome theme, ASCII) the
    /// glyph carries it alone: a letter per phase, so dns, connect and tls are told apart.
    static func glyph(_ phase: WaterfallPhase, utf8: Bool, monochrome: Bool = false) -> String {
        switch (phase, utf8 && !monochrome) {
        case (.queued, true): return "░"
        case (.wait, true): return "─"
        case (_, true): return "█"
        case (.queued, false): return "."
        case (.dns, false): return "d"
        case (.connect, false): return "c"
        case (.tls, false): return "t"
        case (.request, false): return "s"
        case (.wait, false): return "-"
        case (.receive, false): return "r"
        }
    }

    /// Joins neighbouring cells of one role into one span.
    static func merge(_ cells: [Span]) -> [Span] {
        var out: [Span] = []
        for c in cells {
            if let last = out.last, last.role == c.role { out[out.count - 1].text += c.text } else { out.append(c) }
        }
        return out
    }
}
