import Foundation
import TransferModel

/// The table's metrics at a glance: the DNS, connect, TLS and TTFB cells of a
/// task's last transaction, its live phase, and a one-row waterfall of all its hops.
///
/// Everything comes from `Waterfall.hops`, the same segments the detail pane draws, so the
/// table and the pane never disagree. TTFB is the CSV's `ttfb_ms` (curl's
/// `time_starttransfer`): from the end of the queue to the first response byte, so it holds
/// DNS, connect, TLS, request and wait (docs/metrics.md).
public enum TaskPhases {
    /// One phase cell. Blank: not reached yet on a live hop; `-`: the finished hop never had
    /// it (plain http has no TLS); `reused` in the connect cell for a reused connection; `✗`
    /// and its time in the error colour in the phase the hop failed in (the time left out when
    /// the two do not fit in `width`). A hop that failed before its first byte shows its
    /// failed phase in the TTFB column when that is the wait.
    public static func cell(_ phase: WaterfallPhase, hops: [WaterfallHop], width: Int = 6, utf8: Bool = true) -> [Span] {
        guard let last = hops.last else { return [] }
        if last.failedPhase == phase, let segment = last.segments.first(where: { $0.phase == phase && $0.isFailed }) {
            let mark = WaterfallView.failedMark(utf8: utf8)
            let timed = mark + compactMillis(segment.durationMs)
            return [Span(DisplayWidth.of(timed) <= width ? timed : mark, .error)]
        }
        if phase == .wait {
            guard let (ms, running) = ttfb(last) else { return last.currentPhase == nil ? [Span("-", .dim)] : [] }
            return [Span(compactMillis(ms), running ? .phaseMark : WaterfallPhase.wait.role)]
        }
        if last.isReused, [.dns, .connect, .tls].contains(phase) {
            return [phase == .connect ? Span("reused", .phaseMark) : Span("-", .dim)]
        }
        guard let segment = last.segments.first(where: { $0.phase == phase }) else {
            return last.currentPhase == nil ? [Span("-", .dim)] : []
        }
        return [Span(compactMillis(segment.durationMs), segment.isRunning ? .phaseMark : phase.role)]
    }

    /// Time to first byte of a hop: from its first segment after the queue to the end of its
    /// wait (growing while the wait runs); nil before the hop reached the wait.
    public static func ttfb(_ hop: WaterfallHop) -> (ms: Double, running: Bool)? {
        guard let wait = hop.segments.first(where: { $0.phase == .wait }),
              let first = hop.segments.first(where: { $0.phase != .queued }) else { return nil }
        return (max(0, wait.endMs - first.startMs), wait.isRunning)
    }

    /// At most five columns: `0.4ms`, `12ms`, `999ms`, `1.2s`, `12.3s`, `123s`, `45m`.
    public static func compactMillis(_ ms: Double) -> String {
        guard ms.isFinite, ms >= 0 else { return "--" }
        if ms < 9.95 { return "\(Units.decimal(ms))ms" }
        if ms < 999.5 { return "\(Int(ms.rounded()))ms" }
        let s = ms / 1000
        if s < 999.5 { return "\(Units.decimal(s))s" }
        return "\(NumericBounds.clampedInt((s / 60).rounded()))m"
    }

    /// The phase a live task is in now, as a word: `dns`, `tls`, `wait` (for the first byte),
    /// `recv`; nil once its last hop is done.
    public static func livePhase(hops: [WaterfallHop]) -> WaterfallPhase? {
        hops.last?.currentPhase
    }

    /// Every hop's segments on one bar of `width` cells, on the task's own time scale.
    public static func miniWaterfall(_ metrics: TaskMetrics, hops: [WaterfallHop], now: Date, width: Int, utf8: Bool,
                                     monochrome: Bool = false) -> [Span] {
        guard !hops.isEmpty else { return [] }
        let all = WaterfallHop(label: "", segments: hops.flatMap(\.segments), isReused: false, currentPhase: nil, failed: false)
        let scale = Waterfall.scaleMs(metrics, hops: hops, now: now)
        return WaterfallView.bar(all, scaleMs: scale, width: width, utf8: utf8, monochrome: monochrome)
    }
}
