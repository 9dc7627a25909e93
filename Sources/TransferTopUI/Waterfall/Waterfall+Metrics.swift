import Foundation
import TransferModel

/// Pure translation of transaction metrics into waterfall segments.
public enum Waterfall {
    /// The hops of a task on one shared time scale starting at the task's interval start.
    public static func hops(_ metrics: TaskMetrics, now: Date) -> [WaterfallHop] {
        metrics.transactionMetrics.enumerated().map { index, t in
            hop(t, number: index + 1, origin: metrics.taskIntervalStart, now: now, end: metrics.transactionEnd(at: index))
        }
    }

    /// The scale's length in ms: the task's whole interval, or up to `now` while it runs, and
    /// never shorter than the last segment (clocks of engine and monitor may disagree).
    public static func scaleMs(_ metrics: TaskMetrics, hops: [WaterfallHop], now: Date) -> Double {
        let end = metrics.taskIntervalEnd ?? now
        let interval = millis(from: metrics.taskIntervalStart, to: end)
        let last = hops.flatMap(\.segments).map(\.endMs).max() ?? 0
        return Swift.max(interval, last, 0.001)
    }

    /// Milliseconds rounded to the microsecond: `Date` holds about 0.2 µs of precision in
    /// this century, and without rounding 20 ms comes out as 19.99997 and lands a cell short.
    static func millis(from origin: Date, to date: Date) -> Double {
        (date.timeIntervalSince(origin) * 1_000_000).rounded() / 1000
    }

    /// `end`: when the hop ended (`TaskMetrics.transactionEnd`); the phase a failed hop ended
    /// in is drawn up to it, marked failed.
    public static func hop(_ t: TransactionMetrics, number: Int, origin: Date, now: Date, end hopEnd: Date? = nil) -> WaterfallHop {
        let live = t.currentPhase != .done
        let ms = { (d: Date) in millis(from: origin, to: d) }
        let nowMs = ms(now)
        let failed = t.failedPhase.flatMap { WaterfallPhase($0) }
        var segments: [WaterfallSegment] = []
        for (phase, start, end) in intervals(t) {
            guard let start else { continue }
            if let end {
                segments.append(WaterfallSegment(phase: phase, startMs: ms(start), endMs: ms(end)))
            } else if phase == failed, let hopEnd {
                segments.append(WaterfallSegment(phase: phase, startMs: ms(start), endMs: Swift.max(ms(start), ms(hopEnd)), isFailed: true))
            } else if live {
                // An open phase of a running hop grows to "now".
                segments.append(WaterfallSegment(phase: phase, startMs: ms(start), endMs: Swift.max(ms(start), nowMs), isRunning: true))
            }
        }
        // A finished file, ftp or data: hop has no status code: its protocol stands there.
        let byteStream = !live && t.errorDescription == nil && HARExport.isByteStream(t.networkProtocolName)
        let status = t.statusCode.map(String.init) ?? (byteStream ? t.networkProtocolName ?? "---" : (live ? "…" : "---"))
        return WaterfallHop(label: "#\(number) \(status)", segments: segments,
                            isReused: t.isReusedConnection, currentPhase: WaterfallPhase(t.currentPhase),
                            failed: t.errorDescription != nil, failedPhase: failed)
    }

    /// Start and end of every phase; a phase that did not happen has a nil start.
    ///
    /// URLSession counts the TLS handshake inside connect (connectEnd comes after
    /// secureConnectionEnd); we cut connect at the TLS start so the two do not overlap.
    /// A finished hop without a connect end never completed its connection: a failed TLS
    /// handshake's TCP end is unknown, so connect is not drawn as a zero-length phase; the
    /// failed TLS attempt covers it.
    static func intervals(_ t: TransactionMetrics) -> [(WaterfallPhase, Date?, Date?)] {
        let tlsStartEndsConnect = t.connectEndDate != nil || t.currentPhase != .done
        let connectEnd = t.secureConnectionStartDate.flatMap { s in t.connectEndDate.map { min($0, s) } ?? (tlsStartEndsConnect ? s : nil) }
            ?? t.connectEndDate
        let queueEnd = t.queueEndDate
        // A live hop past the request has no request end yet (libcurl reports it only at the
        // end): without one the request would grow to "now" and the wait for the first byte
        // would be drawn as "req". The wait starts where the request started.
        let past = t.currentPhase == .wait || t.currentPhase == .receive
        let requestEnd = t.requestEndDate ?? (past ? t.requestStartDate : nil)
        return [
            (.queued, queueEnd == nil && t.currentPhase != .queued ? nil : t.fetchStartDate, queueEnd),
            (.dns, t.domainLookupStartDate, t.domainLookupEndDate),
            (.connect, t.connectStartDate, connectEnd),
            (.tls, t.secureConnectionStartDate, t.secureConnectionEndDate),
            (.request, t.requestStartDate, requestEnd),
            (.wait, requestEnd, t.responseStartDate),
            (.receive, t.responseStartDate, t.responseEndDate),
        ]
    }
}
