/// The figures of a task's Foundation `Progress`, from its counts: pure, so the
/// rules are tested by table.
public struct TaskProgressFigures: Sendable, Equatable {
    /// Bytes expected in all; -1 while unknown (an indeterminate progress).
    public var total: Int64
    public var completed: Int64
    /// Bytes per second since the task started, nil before a byte moved.
    public var throughput: Int?
    /// Seconds left at that rate, nil when the total or the rate is unknown.
    public var estimatedTimeRemaining: Double?

    public init(total: Int64, completed: Int64, throughput: Int? = nil, estimatedTimeRemaining: Double? = nil) {
        self.total = total
        self.completed = completed
        self.throughput = throughput
        self.estimatedTimeRemaining = estimatedTimeRemaining
    }

    /// An upload counts the bytes it sends, the other kinds the bytes they receive. A task that
    /// completed without error is whole (total = completed, also when the total was never
    /// known), as Apple's; `elapsed` is the task's time so far (its interval when it ended).
    public static func compute(kind: TaskKind, received: Int64, expectedToReceive: Int64, sent: Int64,
                               expectedToSend: Int64, succeeded: Bool, elapsed: Double) -> TaskProgressFigures {
        let (done, expected) = kind == .upload ? (sent, expectedToSend) : (received, expectedToReceive)
        var f = TaskProgressFigures(total: expected >= 0 ? max(expected, done) : -1, completed: max(0, done))
        if succeeded { f.total = f.completed }
        if f.completed > 0, elapsed > 0 {
            let rate = Double(f.completed) / elapsed
            f.throughput = Int(rate.rounded())
            if f.total >= 0, rate > 0 { f.estimatedTimeRemaining = Double(f.total - f.completed) / rate }
        }
        return f
    }
}
