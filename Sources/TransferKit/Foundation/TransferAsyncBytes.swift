import Foundation

/// The body of `TransferURLSession.bytes(for:)`: URLSession.AsyncBytes' counterpart, one byte
/// at a time or `lines`.
public struct TransferAsyncBytes: AsyncSequence, Sendable {
    public typealias Element = UInt8
    let stream: AsyncThrowingStream<Data, any Error>
    /// The data task delivering the bytes.
    public let task: TransferDataTask

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: stream.makeAsyncIterator()) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: AsyncThrowingStream<Data, any Error>.AsyncIterator
        var buffer: [UInt8] = []
        var index = 0

        public mutating func next() async throws -> UInt8? {
            while index >= buffer.count {
                guard let chunk = try await chunks.next() else { return nil }
                buffer = [UInt8](chunk)
                index = 0
            }
            defer { index += 1 }
            return buffer[index]
        }
    }

    /// The body as UTF-8 lines, as Foundation's `AsyncLineSequence` on Apple's platforms
    /// (swift-corelibs-foundation has none): a line ends at LF, CR or CRLF, and empty lines are
    /// skipped as Apple's are.
    public var lines: TransferAsyncLines<TransferAsyncBytes> { TransferAsyncLines(base: self) }
}

/// Lines of an async byte sequence (`TransferAsyncBytes.lines`).
public struct TransferAsyncLines<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == UInt8 {
    public typealias Element = String
    let base: Base

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: base.makeAsyncIterator()) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var bytes: Base.AsyncIterator
        var done = false

        public mutating func next() async throws -> String? {
            var line: [UInt8] = []
            while !done {
                guard let b = try await bytes.next() else {
                    done = true
                    break
                }
                if b == 0x0A || b == 0x0D {
                    // CRLF gives an empty "line" between CR and LF, skipped with the others.
                    if line.isEmpty { continue }
                    return String(decoding: line, as: UTF8.self)
                }
                line.append(b)
            }
            return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
        }
    }
}
