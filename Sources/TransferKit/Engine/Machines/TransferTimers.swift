import Foundation
import TransferModel

/// The two timeouts the engine owns, as arithmetic on monotonic nanoseconds: the idle timer
/// (`timeoutIntervalForRequest`, from the last byte or header line, once the hop has left the
/// queue) and the resource timer (`timeoutIntervalForResource`, from the task's start, not
/// counting time suspended). Pure: the engine passes the clock's reading in.
enum TransferTimers {
    struct Deadlines: Equatable {
        var idle: UInt64?
        var resource: UInt64
    }

    enum Expiry: Equatable {
        case idle
        case resource
    }

    /// Nil when no timer runs (suspended, or waiting for a delegate's decision).
    static func deadlines(timersRun: Bool, leftQueue: Bool, lastActivity: UInt64, taskStart: UInt64,
                          suspendedTotal: UInt64, requestTimeout: TimeInterval,
                          resourceTimeout: TimeInterval) -> Deadlines? {
        guard timersRun else { return nil }
        // Saturating: a library caller may pass any Double (1e26, .infinity), and a trap here
        // would kill the process.
        let idle = leftQueue && requestTimeout > 0
            ? NumericBounds.saturatingAdd(lastActivity, NumericBounds.clampedNanoseconds(requestTimeout)) : nil
        let resource = NumericBounds.saturatingAdd(NumericBounds.saturatingAdd(taskStart, suspendedTotal),
                                                   NumericBounds.clampedNanoseconds(resourceTimeout))
        return Deadlines(idle: idle, resource: resource)
    }

    /// Which timer fired at `now`, the idle one first.
    static func expiry(_ d: Deadlines, now: UInt64) -> Expiry? {
        // Cheap comparisons first: this runs for every transfer on every timer scan.
        if let idle = d.idle, now >= idle { return .idle }
        return now >= d.resource ? .resource : nil
    }

    /// "60 s", or "0.25 s" for a fraction.
    static func formatSeconds(_ s: TimeInterval) -> String {
        s == s.rounded() && abs(s) < 1e15 ? "\(Int(s)) s" : String(format: "%.3g s", s)
    }

    static func message(_ expiry: Expiry, requestTimeout: TimeInterval, resourceTimeout: TimeInterval) -> String {
        switch expiry {
        case .idle: "no data for \(formatSeconds(requestTimeout)) (timeoutIntervalForRequest)"
        case .resource: "the task took longer than \(formatSeconds(resourceTimeout)) (timeoutIntervalForResource)"
        }
    }
}
