import Foundation

extension TransferSession {
    /// URLSession's `init(configuration:delegate:delegateQueue:)` with an `OperationQueue`:
    /// callbacks run on the queue's `underlyingQueue`, so they are serialised with the
    /// operations of that queue (`OperationQueue.main`: the main queue). A queue without an
    /// underlying one gets a private serial one, set while the queue is still empty as
    /// Foundation requires; a queue that already runs operations without one cannot be joined
    /// and the callbacks use a private serial queue (nil: the same). Delivery is always serial,
    /// whatever the queue's `maxConcurrentOperationCount`, as Apple recommends for delegates.
    public convenience init(configuration: TransferConfiguration, delegate: (any TransferSessionDelegate)?,
                            operationQueue: OperationQueue?, name: String? = nil) {
        self.init(configuration: configuration, delegate: delegate,
                  delegateQueue: operationQueue.flatMap(Self.dispatchQueue(joining:)), name: name)
    }

    static func dispatchQueue(joining queue: OperationQueue) -> DispatchQueue? {
        if let underlying = queue.underlyingQueue { return underlying }
        guard queue.operationCount == 0 else { return nil }
        let serial = DispatchQueue(label: "transferkit.operationqueue.\(queue.name ?? "unnamed")")
        queue.underlyingQueue = serial
        return serial
    }
}
