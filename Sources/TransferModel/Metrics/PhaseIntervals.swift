import Foundation

/// A phase of a hop as an interval. `TransactionMetrics.phaseIntervals` is the one place
/// the phases' boundaries are defined: the CSV's durations (`TransactionTimings`) and the
/// trace spans are both read from it, so a phase span lasts what its CSV column says.
public struct PhaseInterval: Sendable, Equatable {
    public var phase: TransactionPhase
    public var start: Date
    public var end: Date
    /// The phase the hop failed in: it lasts until the hop's end (`failedPhase`).
    public var failed: Bool

    public init(phase: TransactionPhase, start: Date, end: Date, failed: Bool) {
        (self.phase, self.start, self.end, self.failed) = (phase, start, end, failed)
    }
}

extension TransactionMetrics {
    /// The phases this hop went through, in the order they happen; a phase that did not
    /// happen is absent. The failed phase (`failedPhase`) comes last and runs from its start
    /// to `transactionEnd` (the task's end for its last hop, the next hop's fetch start
    /// otherwise): TransactionMetrics has no end date of its own for a failed hop.
    public func phaseIntervals(transactionEnd: Date? = nil) -> [PhaseInterval] {
        var out: [PhaseInterval] = []
        func add(_ phase: TransactionPhase, _ start: Date?, _ end: Date?, failed: Bool = false) {
            guard let start, let end else { return }
            out.append(PhaseInterval(phase: phase, start: start, end: max(start, end), failed: failed))
        }
        add(.queued, fetchStartDate, queueEndDate)
        add(.dns, domainLookupStartDate, domainLookupEndDate)
        // Only a completed connection has a TCP duration: on a failed TLS handshake 7.88 does
        // not say when TCP finished (see MetricsTranslation).
        if connectEndDate != nil { add(.connect, connectStartDate, secureConnectionStartDate ?? connectEndDate) }
        add(.tls, secureConnectionStartDate, secureConnectionEndDate)
        add(.request, requestStartDate, requestEndDate)
        add(.wait, requestEndDate, responseStartDate)
        add(.receive, responseStartDate, responseEndDate)
        if let failedPhase { add(failedPhase, failedPhaseStart, transactionEnd, failed: true) }
        return out
    }
}
