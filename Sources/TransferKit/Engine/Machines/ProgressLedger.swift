/// What a transfer has told about its bytes, and what is news. Two audiences:
/// - the task's counters and its delegate (`didWriteData`, `didSendBodyData`) hear running
///   totals, a resumed download's earlier bytes included (`published`);
/// - the observers' progress events carry the bytes moved since the last event, by this run
///   only (line mode's progress and the Prometheus counters add them up), at most one event
///   per interval unless the transfer ends (`emitted`).
/// Pure: the engine passes the byte counts and the clock reading in.
struct ProgressLedger: Equatable {
    struct Bytes: Equatable {
        var received: Int64
        var sent: Int64
        static let zero = Bytes(received: 0, sent: 0)
        var isZero: Bool { received == 0 && sent == 0 }
    }

    /// The totals the task's counters hold.
    private(set) var published = Bytes.zero
    /// The bytes moved that the last progress event had counted.
    private(set) var emitted = Bytes.zero
    private(set) var lastEventAt: UInt64 = 0

    /// The totals changed by this much since they were last published (nil: no change).
    mutating func publish(_ totals: Bytes) -> Bytes? {
        let delta = Bytes(received: totals.received - published.received, sent: totals.sent - published.sent)
        guard !delta.isZero else { return nil }
        published = totals
        return delta
    }

    /// Bytes already in the file when a download resumes are not news; after a restart from
    /// zero, or when a data task became a download, the totals count from `received` again.
    mutating func setPublishedReceived(_ received: Int64) { published.received = received }
    mutating func resetPublished() { published = .zero }

    /// A hop that continues the download from its file's offset counts this run's bytes from
    /// zero again; the `moved` bytes before it were in earlier events.
    mutating func continued(afterMoving moved: Int64) { emitted.received -= moved }

    /// Whether an observers' event is due: at the end, or once the interval passed.
    func eventDue(now: UInt64, interval: UInt64, final: Bool) -> Bool {
        final || now &- lastEventAt >= interval
    }

    /// The observers' event for `moved` (this run's bytes), or nil when nothing moved since
    /// the last one. A count that went down started over (a restart from zero, a hop sending
    /// its body again): all of it is new.
    mutating func emit(_ moved: Bytes, now: UInt64) -> Bytes? {
        var delta = Bytes(received: moved.received - emitted.received, sent: moved.sent - emitted.sent)
        if delta.received < 0 { delta.received = moved.received }
        if delta.sent < 0 { delta.sent = moved.sent }
        guard !delta.isZero else { return nil }
        emitted = moved
        lastEventAt = now
        return delta
    }
}
