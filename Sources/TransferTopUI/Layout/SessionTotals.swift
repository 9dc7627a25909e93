import TransferModel

/// What the header and the sessions pane sum over a session's tasks, made in one pass per
/// frame (`MonitorModel.sessions` recomputes it when set): the header, each session row and
/// the overall progress each walked all 10,000 tasks of a large session again.
public struct SessionTotals: Sendable, Equatable {
    public var counts = StateCounts()
    /// Bytes done and expected over the tasks of known size, and what running or suspended
    /// ones still have to move (for the overall ETA). A task that ended without success counts
    /// what it moved, not the rest it never will (the header reaches 100 % once everything
    /// ended); a task continued by another counts nothing (its continuation counts its bytes).
    public var done: Int64 = 0
    public var total: Int64 = 0
    public var remaining: Int64 = 0
    /// Tasks with an https transaction whose certificate was not verified (`-k`): the header
    /// says so in the error colour.
    public var unverifiedTLS = 0
    /// Tasks that stand for a URL of their own (a task continued by another does not), those of
    /// them that ended, those of known size and the sizes they expect, and the unfinished ones
    /// whose size is not known yet (queued, or no length from the server): the header counts
    /// each URL once and estimates what the unsized ones will move.
    public var urls = 0
    public var ended = 0
    public var sized = 0
    public var expected: Int64 = 0
    public var unsized = 0

    public init() {}

    public init<S: Sequence>(_ tasks: S, superseded: Set<TaskID> = []) where S.Element == TaskSnapshot {
        counts = StateCounts(tasks)
        for t in tasks {
            if t.metrics.transactionMetrics.contains(where: { $0.isTLSVerified == false }) { unverifiedTLS += 1 }
            if !superseded.isEmpty, superseded.contains(t.id) { continue }
            urls += 1
            if t.state == .completed { ended += 1 }
            let (d, e) = TransferRates.progress(t)
            guard e > 0 else {
                if t.state != .completed { unsized += 1 }
                continue
            }
            sized += 1
            expected += e
            let moved = Swift.min(d, e)
            done += moved
            total += t.state == .completed && t.error != nil ? moved : e
            if t.state == .running || t.state == .suspended { remaining += Swift.max(0, e - d) }
        }
    }

    /// Every session's totals together.
    public init<S: Sequence>(summing all: S) where S.Element == SessionTotals {
        counts = StateCounts(summing: all.map(\.counts))
        for t in all {
            done += t.done
            total += t.total
            remaining += t.remaining
            unverifiedTLS += t.unverifiedTLS
            urls += t.urls
            ended += t.ended
            sized += t.sized
            expected += t.expected
            unsized += t.unsized
        }
    }
}
