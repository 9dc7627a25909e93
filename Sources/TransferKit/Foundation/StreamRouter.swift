import Foundation

/// Hands each `bytes(for:)` task's response and body to its caller; the delegate bridge asks
/// it first, and a task it does not know goes on to the session's delegate. Tasks with
/// completion handlers never reach it.
final class StreamRouter: Sendable {
    struct Entry: Sendable {
        let continuation: AsyncThrowingStream<Data, any Error>.Continuation
        let head: ResponseHead
    }

    private let entries = Locked<[Int: Entry]>([:])

    func register(_ task: TransferDataTask, _ continuation: AsyncThrowingStream<Data, any Error>.Continuation) -> ResponseHead {
        let head = ResponseHead()
        entries.withLock { $0[task.taskIdentifier] = Entry(continuation: continuation, head: head) }
        return head
    }

    /// Whether the task is a stream's.
    func receive(_ response: TransferResponse, for task: TransferDataTask) -> Bool {
        guard let entry = entries.withLock({ $0[task.taskIdentifier] }) else { return false }
        entry.head.set(.success(response))
        return true
    }

    func receive(_ data: Data, for task: TransferDataTask) -> Bool {
        guard let entry = entries.withLock({ $0[task.taskIdentifier] }) else { return false }
        entry.continuation.yield(data)
        return true
    }

    func complete(_ task: TransferTask, error: TransferError?) -> Bool {
        guard let entry = entries.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return false }
        if let error {
            entry.head.set(.failure(error))
            entry.continuation.finish(throwing: error.urlError)
        } else {
            entry.head.set(.failure(TransferError(.badServerResponse, "no response was received")))
            entry.continuation.finish()
        }
        return true
    }
}

/// A response head awaited once: whichever of `set` and `value()` comes first.
final class ResponseHead: Sendable {
    private let state = Locked<(result: Result<TransferResponse, TransferError>?,
                                waiter: CheckedContinuation<TransferResponse, any Error>?)>((nil, nil))

    /// The first result wins; later ones are ignored.
    func set(_ result: Result<TransferResponse, TransferError>) {
        let waiter = state.withLock { s -> CheckedContinuation<TransferResponse, any Error>? in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(with: result.mapError { $0.urlError })
    }

    func value() async throws -> TransferResponse {
        try await withCheckedThrowingContinuation { c in
            let ready = state.withLock { s -> Result<TransferResponse, TransferError>? in
                if let r = s.result { return r }
                s.waiter = c
                return nil
            }
            if let ready { c.resume(with: ready.mapError { $0.urlError }) }
        }
    }
}
