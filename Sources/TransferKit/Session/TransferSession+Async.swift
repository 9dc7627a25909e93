import Foundation

extension TransferSession {
    /// Loads a request's body into memory. Cancelling the Swift task cancels the
    /// transfer.
    public func data(for request: TransferRequest) async throws(TransferError) -> (Data, TransferResponse) {
        try await run { done in
            self.dataTask(with: request) { data, response, error in
                done(Self.outcome(data ?? Data(), response, error))
            }
        }
    }

    public func data(from url: URL) async throws(TransferError) -> (Data, TransferResponse) {
        try await data(for: TransferRequest(url: url))
    }

    /// Uploads bytes and returns the response body.
    public func upload(for request: TransferRequest, from body: Data) async throws(TransferError) -> (Data, TransferResponse) {
        try await run { done in
            self.uploadTask(with: request, from: body) { data, response, error in
                done(Self.outcome(data ?? Data(), response, error))
            }
        }
    }

    /// Uploads a file streamed from disk and returns the response body.
    public func upload(for request: TransferRequest, fromFile file: URL) async throws(TransferError) -> (Data, TransferResponse) {
        try await run { done in
            self.uploadTask(with: request, fromFile: file) { data, response, error in
                done(Self.outcome(data ?? Data(), response, error))
            }
        }
    }

    /// Downloads to a file that belongs to the caller (it is not deleted): move it or remove it.
    public func download(for request: TransferRequest) async throws(TransferError) -> (URL, TransferResponse) {
        try await run { done in
            self.downloadTask(with: request) { file, response, error in
                done(Self.outcome(file.flatMap(Self.keep), response, error))
            }
        }
    }

    /// Moves a download out of the engine's way before the engine deletes it.
    static func keep(_ file: URL) -> URL? {
        let kept = file.deletingPathExtension().appendingPathExtension("download")
        return (try? FileManager.default.moveItem(at: file, to: kept)) != nil ? kept : nil
    }

    static func outcome<T>(_ value: T?, _ response: TransferResponse?, _ error: TransferError?)
        -> Result<(T, TransferResponse), TransferError> {
        if let error { return .failure(error) }
        guard let value, let response else {
            return .failure(TransferError(.badServerResponse, "no response was received"))
        }
        return .success((value, response))
    }

    /// Bridges a completion-handler task to async/await with cancellation.
    func run<T: Sendable>(
        _ make: (@escaping @Sendable (Result<T, TransferError>) -> Void) -> TransferTask
    ) async throws(TransferError) -> T {
        let box = TaskBox()
        let result: Result<T, TransferError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (cont: CheckedContinuation<Result<T, TransferError>, Never>) in
                let task = make { cont.resume(returning: $0) }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
        return try result.get()
    }
}

/// Holds the task of an async call so Swift cancellation can reach it, whichever comes first.
final class TaskBox: Sendable {
    private let state = Locked<(task: TransferTask?, cancelled: Bool)>((nil, false))

    func set(_ t: TransferTask) {
        let cancelled = state.withLock { s -> Bool in
            s.task = t
            return s.cancelled
        }
        if cancelled { t.cancel() }
    }

    func cancel() {
        state.withLock { s -> TransferTask? in
            s.cancelled = true
            return s.task
        }?.cancel()
    }
}
