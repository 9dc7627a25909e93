import Foundation

/// Delegate-queue work made on the transfer thread goes out once per loop turn, as one block
/// that runs the turn's deliveries in the order they were made (DECISIONS 136).
///
/// A 5,000 x 1 KiB list made two `delegateQueue.async` per URL (*didWriteData*, then the
/// completion): each a block, a queue poke and, with the queue idle, a wake-up of its worker,
/// which on two cores also preempted this thread. One hop per turn carries every completion of that turn.
///
/// Order is kept: everything this thread hands the delegate queue goes through the outbox,
/// so its blocks run in the order they were made, as separate `async` calls would. Work made
/// on any other thread (the public API, a background link) is not batched and, as before,
/// has no order relative to the transfer thread's.
///
/// With a `deliveryCoalescingInterval` a turn's blocks that nothing waits for may stay for
/// later turns, so one hop carries many completions (the CLI: 10 ms).
extension TransferEngine {
    /// Whether the caller runs on this engine's transfer thread.
    var isTransferThread: Bool { transferThread.load(ordering: .relaxed) == pthread_self() }

    /// Blocks held before the outbox goes out even within `deliveryCoalescingInterval`.
    static let outboxCap = 256

    /// Queues `block` for the end of this loop turn (transfer thread only). `awaited`: the
    /// engine or a caller waits for what the block does, so it never waits in the outbox.
    func enqueueDelivery(_ block: @escaping @Sendable () -> Void, on queue: DispatchQueue, awaited: Bool) {
        // One engine serves one session, whose delegate queue is fixed: a batch never mixes queues.
        assert(outboxQueue == nil || outboxQueue === queue, "one outbox, one delegate queue")
        outboxQueue = queue
        if outbox.isEmpty && coalescingNanos > 0 { outboxSince = Monotonic.now() }
        outboxAwaited = outboxAwaited || awaited
        outbox.append(block)
    }

    /// The end of a loop turn: sends the outbox now, or, within the session's
    /// `deliveryCoalescingInterval`, keeps it and returns how many milliseconds it may wait
    /// (the most the next poll may sleep).
    func flushOutboxUnlessHeld() -> Int? {
        guard !outbox.isEmpty else { return nil }
        if coalescingNanos > 0, !outboxAwaited, outbox.count < Self.outboxCap, !transfers.isEmpty {
            let held = Monotonic.now() &- outboxSince
            if held < coalescingNanos { return Int((coalescingNanos - held) / 1_000_000) + 1 }
        }
        flushOutbox()
        return nil
    }

    /// Sends the outbox to the delegate queue as one block. Called at the end of a loop turn
    /// (`flushOutboxUnlessHeld`) and before the loop shuts down.
    func flushOutbox() {
        guard !outbox.isEmpty, let queue = outboxQueue else { return }
        let batch = outbox
        outbox.removeAll(keepingCapacity: true)
        outboxAwaited = false
        outboxFlushes.add(1, ordering: .relaxed)
        queue.async {
            for block in batch { block() }
        }
    }

    /// `deliveryCoalescingInterval` in nanoseconds: 0 for negative or NaN, at most an hour.
    static func coalescingNanos(_ interval: TimeInterval) -> UInt64 {
        guard interval > 0 else { return 0 }  // false for NaN too
        return UInt64(min(interval, 3600) * 1e9)
    }
}

extension TransferSession {
    /// Runs `block` on the delegate queue after everything handed to it before: from the
    /// transfer thread at the end of its loop turn (`flushOutbox`; or, when nothing waits for
    /// it, within the `deliveryCoalescingInterval`), from any other thread at once. Every
    /// delegate callback the engine makes goes through here. `awaited`: the engine or a caller
    /// waits for the block (an answer, data under back-pressure, resume data).
    func deliver(awaited: Bool = false, _ block: @escaping @Sendable () -> Void) {
        if engine.isTransferThread {
            engine.enqueueDelivery(block, on: delegateQueue, awaited: awaited)
        } else {
            delegateQueue.async(execute: block)
        }
    }
}
