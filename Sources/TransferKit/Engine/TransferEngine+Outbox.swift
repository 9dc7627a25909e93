import Foundation

/// Delegate-queue work made on the transfer thread goes out once per loop turn, as one block
/// that runs the turn's deliveries in the order they were made (DECISIONS 136).
///
/// A 5,000 x 1 KiB list made two `delegateQueue.async` per URL (*didWriteData*, then the
/// completion): each a block, a queue poke and, with the queue idle, a wake-up of its worker,
/// which on two cores also preempted this thread (issue 8: ~5,000 context switches a run where
/// curl had 300). One hop per turn carries every completion of that turn.
///
/// Order is kept: everything this thread hands the delegate queue goes through the outbox,
/// so its blocks run in the order they were made, as separate `async` calls would. Work made
/// on any other thread (the public API, a background link) is not batched and, as before,
/// has no order relative to the transfer thread's.
extension TransferEngine {
    /// Whether the caller runs on this engine's transfer thread.
    var isTransferThread: Bool { transferThread.load(ordering: .relaxed) == pthread_self() }

    /// Queues `block` for the end of this loop turn (transfer thread only).
    func enqueueDelivery(_ block: @escaping @Sendable () -> Void, on queue: DispatchQueue) {
        // One engine serves one session, whose delegate queue is fixed: a batch never mixes queues.
        assert(outboxQueue == nil || outboxQueue === queue, "one outbox, one delegate queue")
        outboxQueue = queue
        outbox.append(block)
    }

    /// Sends the turn's deliveries to the delegate queue as one block. Called before the loop
    /// sleeps and before it shuts down, so nothing waits in the outbox across a poll.
    func flushOutbox() {
        guard !outbox.isEmpty, let queue = outboxQueue else { return }
        let batch = outbox
        outbox.removeAll(keepingCapacity: true)
        queue.async {
            for block in batch { block() }
        }
    }
}

extension TransferSession {
    /// Runs `block` on the delegate queue after everything handed to it before: from the
    /// transfer thread at the end of its loop turn (`flushOutbox`), from any other thread at
    /// once. Every delegate callback the engine makes goes through here.
    func deliver(_ block: @escaping @Sendable () -> Void) {
        if engine.isTransferThread {
            engine.enqueueDelivery(block, on: delegateQueue)
        } else {
            delegateQueue.async(execute: block)
        }
    }
}
