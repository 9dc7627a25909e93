import Foundation
import TransferModel

extension TaskTrace {
    /// The phases hop `m` went through, by start (`TransactionMetrics.phaseIntervals`, the
    /// boundaries the CSV's `*_ms` columns have); a phase that did not happen is absent.
    static func phases(_ m: TransactionMetrics, transactionEnd: Date?) -> [PhaseInterval] {
        m.phaseIntervals(transactionEnd: transactionEnd)
            .sorted { ($0.start, order($0.phase)) < ($1.start, order($1.phase)) }
    }

    private static func order(_ p: TransactionPhase) -> Int {
        TransactionPhase.allCases.firstIndex(of: p) ?? 0
    }
}
