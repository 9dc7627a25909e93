import Foundation

/// One hop's phase durations in milliseconds, shared by the CSV and HAR writers and the UI.
///
/// A duration is `nil` when its phase is absent (did not happen) or did not finish: never 0 for
/// "absent". The phase a failed hop ended in (`TransactionMetrics.failedPhase`) lasts until the
/// hop's end, so the phase that failed has its duration. docs/metrics.md defines each one.
public struct TransactionTimings: Sendable, Equatable {
    /// fetch start → queue end: waiting for a free connection (per-host limit).
    public var queuedMs: Double?
    public var dnsMs: Double?
    /// TCP only: connect start → TLS start (or connect end without TLS).
    public var connectMs: Double?
    public var tlsMs: Double?
    /// request start → request end (head, and body for uploads).
    public var requestMs: Double?
    /// request end → first response byte (HAR `wait`).
    public var waitMs: Double?
    /// first response byte → last response byte.
    public var receiveMs: Double?
    /// queue end → first response byte: curl's `time_starttransfer`, counted from when the hop
    /// got its connection slot (from fetch start only when the queue end is unknown).
    public var ttfbMs: Double?
    /// fetch start → response end, or → `transactionEnd` when the hop failed before a response.
    public var totalMs: Double?
    /// The phase the hop failed in (its duration is the one above), nil when none did.
    public var failedPhase: TransactionPhase?

    public init(queuedMs: Double? = nil, dnsMs: Double? = nil, connectMs: Double? = nil,
                tlsMs: Double? = nil, requestMs: Double? = nil, waitMs: Double? = nil,
                receiveMs: Double? = nil, ttfbMs: Double? = nil, totalMs: Double? = nil) {
        self.queuedMs = queuedMs
        self.dnsMs = dnsMs
        self.connectMs = connectMs
        self.tlsMs = tlsMs
        self.requestMs = requestMs
        self.waitMs = waitMs
        self.receiveMs = receiveMs
        self.ttfbMs = ttfbMs
        self.totalMs = totalMs
    }

    /// - Parameter transactionEnd: when the hop ended if it got no complete response (the task's
    ///   end for its last hop, the next hop's fetch start otherwise); TransactionMetrics has no
    ///   end date of its own for a failed hop.
    public init(_ m: TransactionMetrics, transactionEnd: Date? = nil) {
        func ms(_ a: Date?, _ b: Date?) -> Double? {
            guard let a, let b else { return nil }
            return max(0, b.timeIntervalSince(a) * 1000)
        }
        // The phases' boundaries are `phaseIntervals`'; the failed phase, last, runs to the
        // hop's end, so the exports give it the time the screen does.
        for p in m.phaseIntervals(transactionEnd: transactionEnd) {
            let duration = ms(p.start, p.end)
            switch p.phase {
            case .queued where !p.failed: queuedMs = duration
            case .dns: dnsMs = duration
            case .connect: connectMs = duration
            case .tls: tlsMs = duration
            case .request: requestMs = duration
            case .wait: waitMs = duration
            case .receive where !p.failed: receiveMs = duration
            default: break
            }
            if p.failed { failedPhase = p.phase }
        }
        // Not from fetch start: the 40th request multiplexed on one connection waited 7.3 of
        // its 7.6 ms for the slot; queueing has its own column.
        ttfbMs = ms(m.queueEndDate ?? m.fetchStartDate, m.responseStartDate)
        totalMs = ms(m.fetchStartDate, m.responseEndDate ?? transactionEnd)
    }

    /// The same durations without the failed phase's: for statistics of how long phases take
    /// (percentiles, budgets, compare, Prometheus), where the time a failure took is not a sample
    /// of the phase (the failure is counted as an error there).
    public var completedPhases: TransactionTimings {
        var d = self
        switch failedPhase {
        case .dns: d.dnsMs = nil
        case .connect: d.connectMs = nil
        case .tls: d.tlsMs = nil
        case .request: d.requestMs = nil
        case .wait: d.waitMs = nil
        default: break
        }
        d.failedPhase = nil
        return d
    }

    /// Connect including TLS (HAR `connect`): connect start → connect end.
    public static func connectIncludingTLSMs(_ m: TransactionMetrics) -> Double? {
        guard let a = m.connectStartDate, let b = m.connectEndDate else { return nil }
        return max(0, b.timeIntervalSince(a) * 1000)
    }
}

extension TaskMetrics {
    /// The end of hop `index` for durations: its response end, else the next hop's fetch start,
    /// else the task's end.
    public func transactionEnd(at index: Int) -> Date? {
        let m = transactionMetrics[index]
        if let end = m.responseEndDate { return end }
        if index + 1 < transactionMetrics.count, let next = transactionMetrics[index + 1].fetchStartDate {
            return next
        }
        return taskIntervalEnd
    }

    /// The durations of every hop, in order.
    public var timings: [TransactionTimings] {
        transactionMetrics.indices.map { TransactionTimings(transactionMetrics[$0], transactionEnd: transactionEnd(at: $0)) }
    }
}
