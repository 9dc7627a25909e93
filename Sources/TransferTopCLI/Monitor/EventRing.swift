import Synchronization
import TransferKit

/// Events from engine threads, waiting for the UI loop: bounded, so a flood of callbacks
/// between two frames costs at most `capacity` entries (the oldest are dropped).
final class EventRing: Sendable {
    let capacity: Int
    private let buffer = Locked<[TransferEvent]>([])

    init(capacity: Int = 1000) { self.capacity = capacity }

    func push(_ event: TransferEvent) {
        buffer.withLock { b in
            b.append(event)
            if b.count > capacity { b.removeFirst(b.count - capacity) }
        }
    }

    func drain() -> [TransferEvent] {
        buffer.withLock { b in defer { b = [] }; return b }
    }
}
