import Foundation

/// Moves a request body from an `InputStream` (a pipe, stdin, a generator) to libcurl's read
/// callback. `InputStream.read` may block, and the transfer thread must never block,
/// so a thread of its own reads ahead into a bounded buffer (at most `highWater` bytes wait);
/// the read callback takes what is there and pauses the transfer when nothing is, and the pump
/// calls `onData` to have it unpaused when bytes arrive.
final class BodyStreamPump: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `condition`.
    enum Take: Equatable {
        case bytes(Int)
        /// Nothing buffered yet: pause; `onData` runs when there is.
        case wouldBlock
        case end
        case failed(TransferError)
    }

    static let highWater = 1 << 20
    static let readSize = 64 * 1024

    private let stream: InputStream
    private let onData: @Sendable () -> Void
    private let condition = NSCondition()
    private var buffer = Data()
    private var ended = false
    private var failure: TransferError?
    private var readerWaiting = false
    private var stopped = false

    init(stream: InputStream, onData: @escaping @Sendable () -> Void) {
        self.stream = stream
        self.onData = onData
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "tk-body-stream"
        thread.start()
    }

    /// Ends the pump (the transfer is done or gone); a read blocked in the stream ends when the
    /// stream does.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Called by libcurl's read callback on the transfer thread: never blocks.
    func take(into out: UnsafeMutableRawBufferPointer) -> Take {
        condition.lock()
        defer { condition.unlock() }
        if let failure { return .failed(failure) }
        if buffer.isEmpty {
            if ended { return .end }
            readerWaiting = true
            return .wouldBlock
        }
        let n = min(out.count, buffer.count)
        buffer.copyBytes(to: out.bindMemory(to: UInt8.self), count: n)
        buffer.removeFirst(n)
        condition.broadcast()  // room for the pump
        return .bytes(n)
    }

    private func run() {
        stream.open()
        defer { stream.close() }
        var chunk = [UInt8](repeating: 0, count: Self.readSize)
        while true {
            condition.lock()
            while buffer.count >= Self.highWater && !stopped { condition.wait() }
            let stop = stopped
            condition.unlock()
            if stop { return }
            let n = stream.read(&chunk, maxLength: chunk.count)
            condition.lock()
            if n > 0 {
                buffer.append(chunk, count: n)
            } else if n == 0 {
                ended = true
            } else {
                let reason = stream.streamError.map { "\($0)" } ?? "unknown error"
                failure = TransferError(.requestBodyStreamExhausted, "the request body stream failed: \(reason)")
            }
            let wake = readerWaiting
            readerWaiting = false
            let done = n <= 0
            condition.unlock()
            if wake { onData() }
            if done { return }
        }
    }
}
