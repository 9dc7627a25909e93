import Foundation
import TransferModel

/// A phase of a hop as an interval: the same boundaries as `TransactionTimings` (the CSV's
/// `queued_ms` … `receive_ms`), so a phase span's duration is its CSV column.
public struct PhaseInterval: Sendable, Equatable {
    public var phase: TransactionPhase
    public var start: Date
    public var end: Date
    /// The phase the hop failed in: it lasts until the hop's end (`failedPhase`).
    public var failed: Bool
}

extension TaskTrace {
    /// The phases hop `m` went through, in order; a phase that did not happen is absent.
    static func phases(_ m: TransactionMetrics, transactionEnd: Date?) -> [PhaseInterval] {
        var out: [PhaseInterval] = []
        func add(_ phase: TransactionPhase, _ start: Date?, _ end: Date?) {
            guard let start, let end else { return }
            out.append(PhaseInterval(phase: phase, start: start, end: max(start, end), failed: false))
        }
        add(.queued, m.fetchStartDate, m.queueEndDate)
        add(.dns, m.domainLookupStartDate, m.domainLookupEndDate)
        // TCP only, and only a completed connection (as TransactionTimings.connectMs).
        if m.connectEndDate != nil { add(.connect, m.connectStartDate, m.secureConnectionStartDate ?? m.connectEndDate) }
        add(.tls, m.secureConnectionStartDate, m.secureConnectionEndDate)
        add(.request, m.requestStartDate, m.requestEndDate)
        add(.wait, m.requestEndDate, m.responseStartDate)
        add(.receive, m.responseStartDate, m.responseEndDate)
        guard let failed = m.failedPhase, let start = m.failedPhaseStart, let end = transactionEnd else { return out }
        out.append(PhaseInterval(phase: failed, start: start, end: max(start, end), failed: true))
        return out.sorted { ($0.start, order($0.phase)) < ($1.start, order($1.phase)) }
    }

    private static func order(_ p: TransactionPhase) -> Int {
        TransactionPhase.allCases.firstIndex(of: p) ?? 0
    }
}
