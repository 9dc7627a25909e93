import BackgroundJournal
import BackgroundWire
import Foundation

/// Bytes received, journaled about once a second in one transaction rather than per chunk
/// (progress is checkpointed in batches, not per tick). The thread sleeps on a
/// condition while nothing changed.
final class ProgressCheckpoints: @unchecked Sendable {
    // @unchecked: `pending` and `started` are guarded by `condition`.
    private let journal: Journal
    private let condition = NSCondition()
    private var pending: [BackgroundHost.TaskKey: (Int64, Int64?)] = [:]
    private var started = false

    private let onFlush: @Sendable () -> Void

    init(journal: Journal, onFlush: @escaping @Sendable () -> Void = {}) {
        self.journal = journal
        self.onFlush = onFlush
    }

    func note(_ key: BackgroundHost.TaskKey, received: Int64, expected: Int64?, final: Bool = false) {
        condition.lock()
        pending[key] = (received, expected)
        if !started {
            started = true
            Thread.detachNewThread { [self] in loop() }
        }
        condition.signal()
        condition.unlock()
        if final { flush() }
    }

    private func loop() {
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            condition.unlock()
            Thread.sleep(forTimeInterval: 1)  // gather a second's worth into one transaction
            flush()
        }
    }

    /// One flush at a time (the loop thread and the writer queue both flush): a batch taken
    /// earlier must not be committed after a later one, or a count would go back.
    private let flushing = NSLock()

    func flush() {
        flushing.lock()
        defer { flushing.unlock() }
        condition.lock()
        let batch = pending
        pending = [:]
        condition.unlock()
        guard !batch.isEmpty else { return }
        try? journal.checkpointProgress(batch.map { (session: $0.key.session, task: $0.key.number, received: $0.value.0, expected: $0.value.1) })
        onFlush()
    }
}
