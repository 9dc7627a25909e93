import Foundation
import Synchronization

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
///
/// The engine's outbox: the turn's blocks, their queue, and which thread is the transfer thread.
final class DeliveryOutbox: @unchecked Sendable {
    // @unchecked: `transferThread`, `deliveringThread` and `flushes` are atomics, read from
    // any thread; `wakeupOwed` is touched only by the thread running a batch (one at a time:
    // the delegate queue is serial); every other mutable field is touched only on the
    // transfer thread.

    /// The transfer thread's `pthread_self()` once it runs (0 before): `isTransferThread`.
    let transferThread = Atomic<UInt>(0)
    /// How many times the outbox went to the delegate queue: tests prove with it that
    /// callbacks were held (`deliveryCoalescingInterval`), not only that none was lost.
    let flushes = Atomic<Int>(0)
    /// Delegate-queue work of this loop turn and its queue.
    private var blocks: [@Sendable () -> Void] = []
    private var queue: DispatchQueue?
    /// A block in the outbox is waited for (`deliver(awaited:)`): the outbox goes this turn.
    private var awaited = false
    /// When the outbox's oldest block was queued (`Monotonic`; kept only while coalescing).
    private var since: UInt64 = 0
    /// The configuration's `deliveryCoalescingInterval` in nanoseconds.
    private let coalescingNanos: UInt64
    /// The thread running a batch of this outbox on the delegate queue (0 when none runs).
    private let deliveringThread = Atomic<UInt>(0)
    /// A start sent during the running batch found the inbox empty and did not wake the loop.
    /// Only the delivering thread touches it.
    private var wakeupOwed = false
    /// The engine's multi handle, woken at the end of a batch that owes the loop a wakeup (a
    /// no-op once the engine closed it). Not a weak reference to the engine: it would put every
    /// retain and release of the engine on the runtime's slow path (DECISIONS 213).
    private let multi: MultiHandle

    init(coalescingInterval: TimeInterval, multi: MultiHandle) {
        coalescingNanos = Self.coalescingNanos(coalescingInterval)
        self.multi = multi
    }

    /// Whether the caller runs on this engine's transfer thread.
    var isTransferThread: Bool { transferThread.load(ordering: .relaxed) == pthread_self() }

    /// Blocks held before the outbox goes out even within `deliveryCoalescingInterval`.
    static let cap = 256

    /// Queues `block` for the end of this loop turn (transfer thread only). `awaited`: the
    /// engine or a caller waits for what the block does, so it never waits in the outbox.
    func enqueue(_ block: @escaping @Sendable () -> Void, on queue: DispatchQueue, awaited: Bool) {
        // One engine serves one session, whose delegate queue is fixed: a batch never mixes queues.
        assert(self.queue == nil || self.queue === queue, "one outbox, one delegate queue")
        self.queue = queue
        if blocks.isEmpty && coalescingNanos > 0 { since = Monotonic.now() }
        self.awaited = self.awaited || awaited
        blocks.append(block)
    }

    /// The end of a loop turn: sends the outbox now, or, within the session's
    /// `deliveryCoalescingInterval`, keeps it and returns how many milliseconds it may wait
    /// (the most the next poll may sleep). `transfersLeft`: the engine still has transfers
    /// (with none, nothing more would join the outbox).
    func flushUnlessHeld(transfersLeft: Bool) -> Int? {
        guard !blocks.isEmpty else { return nil }
        if coalescingNanos > 0, !awaited, blocks.count < Self.cap, transfersLeft {
            let held = Monotonic.now() &- since
            if held < coalescingNanos { return Int((coalescingNanos - held) / 1_000_000) + 1 }
        }
        flush()
        return nil
    }

    /// Sends the outbox to the delegate queue as one block. Called at the end of a loop turn
    /// (`flushUnlessHeld`) and before the loop shuts down.
    func flush() {
        guard !blocks.isEmpty, let queue else { return }
        let batch = blocks
        blocks.removeAll(keepingCapacity: true)
        awaited = false
        flushes.add(1, ordering: .relaxed)
        queue.async { [self] in
            deliveringThread.store(pthread_self(), ordering: .relaxed)
            for block in batch { block() }
            deliveringThread.store(0, ordering: .relaxed)
            if wakeupOwed {
                wakeupOwed = false
                multi.wakeup()
            }
        }
    }

    /// Whether a start sent now may leave the loop asleep until the running batch ends: on a
    /// session that coalesces its deliveries (it has said callbacks may wait), from that
    /// batch's own thread. A run that feeds its window as tasks complete starts tasks from
    /// its delegate's completions, a whole batch at a time; each start woke the loop, which
    /// took one command and slept again (a send, a receive and two context switches per
    /// file). The loop has the earlier tasks to run meanwhile, and the batch ends in
    /// milliseconds. A session without coalescing wakes the loop at once, as before: its
    /// delegate may block until a task it started has begun.
    var defersWakeups: Bool {
        coalescingNanos > 0 && deliveringThread.load(ordering: .relaxed) == pthread_self()
    }

    /// The running batch owes the loop a wakeup (`defersWakeups`; delivering thread only).
    func owesWakeup() { wakeupOwed = true }

    /// `deliveryCoalescingInterval` in nanoseconds: 0 for negative or NaN, at most an hour.
    static func coalescingNanos(_ interval: TimeInterval) -> UInt64 {
        guard interval > 0 else { return 0 }  // false for NaN too
        return UInt64(min(interval, 3600) * 1e9)
    }
}

extension TransferSession {
    /// Runs `block` on the delegate queue after everything handed to it before: from the
    /// transfer thread at the end of its loop turn (`DeliveryOutbox.flush`; or, when nothing
    /// waits for it, within the `deliveryCoalescingInterval`), from any other thread at once.
    /// Every delegate callback the engine makes goes through here. `awaited`: the engine or a
    /// caller waits for the block (an answer, data under back-pressure, resume data).
    func deliver(awaited: Bool = false, _ block: @escaping @Sendable () -> Void) {
        if engine.outbox.isTransferThread {
            engine.outbox.enqueue(block, on: delegateQueue, awaited: awaited)
        } else {
            delegateQueue.async(execute: block)
        }
    }
}
