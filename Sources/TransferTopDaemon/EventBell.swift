import BackgroundWire
import Foundation

/// Wakes the clients that follow a session when the journal has something new. A counter
/// under a condition: a follower remembers the count it last saw, so a ring between its
/// journal read and its wait is never lost. Nobody polls: an idle daemon sleeps.
final class EventBell: @unchecked Sendable {
    // @unchecked: `rings` is guarded by `condition`.
    private let condition = NSCondition()
    private var rings: UInt64 = 0
    private var stateRings: UInt64 = 0

    var count: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return rings
    }

    /// Rings that were not only a progress checkpoint: the monitor's watch reads the journal
    /// again only after one of these (it takes running tasks' bytes from their runners).
    var changes: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return stateRings
    }

    func ring(progressOnly: Bool = false) {
        condition.lock()
        rings &+= 1
        if !progressOnly { stateRings &+= 1 }
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once the count differs from `seen`, or at `deadline` (so a follower whose
    /// client went away notices it even when nothing happens).
    func wait(after seen: UInt64, until deadline: Date) {
        condition.lock()
        while rings == seen, condition.wait(until: deadline) {}
        condition.unlock()
    }
}
