import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw-TCP server on 127.0.0.1 that answers each request with scripted bytes, for clients
/// facing servers that break HTTP: malformed status lines, endless heads, bad chunk framing,
/// lying lengths, decompression bombs. It reads a request head only to pick the reply by its
/// path; what it sends is never checked against HTTP.
///
/// One thread per connection, plain sockets: a NIO pipeline would parse or frame what these
/// replies must be free to get wrong.
public final class HostileServer: @unchecked Sendable {
    // @unchecked: `routes` and `listener` are set once in init; the open connections and
    // the request log are behind `lock`.

    /// What one request gets: `head`, then `unit` `repeatCount` times, then `tail`; then the
    /// connection is closed, or, with `holdsOpen`, kept open until the client closes it or
    /// the server stops (a server that goes silent).
    public struct Reply: Sendable {
        public var head: [UInt8]
        public var unit: [UInt8]
        public var repeatCount: Int
        public var tail: [UInt8]
        public var holdsOpen: Bool
        /// Held after `head` until the test opens it.
        public var gate: Gate?

        public init(_ head: [UInt8], repeating unit: [UInt8] = [], count: Int = 0, tail: [UInt8] = [],
                    holdsOpen: Bool = false, gate: Gate? = nil) {
            self.head = head
            self.unit = unit
            self.repeatCount = count
            self.tail = tail
            self.holdsOpen = holdsOpen
            self.gate = gate
        }

        public init(_ text: String, holdsOpen: Bool = false) {
            self.init(Array(text.utf8), holdsOpen: holdsOpen)
        }
    }

    /// A point in a reply where the server waits for the test: the test waits for a
    /// response to arrive there, acts, then opens it (one response per gate).
    public final class Gate: @unchecked Sendable {
        // @unchecked: two semaphores, safe from any thread.
        let arrived = DispatchSemaphore(value: 0)
        let opened = DispatchSemaphore(value: 0)

        public init() {}

        public func waitForArrival() async throws {
            let came = await offPool { [arrived] in arrived.wait(timeout: .now() + eventDeadline) == .success }
            if !came { throw HostileServerError(what: "no response reached the gate within \(eventDeadline) s") }
        }

        public func open() { opened.signal() }
    }

    public let port: Int
    public var base: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let routes: [String: Reply]
    private let lock = NSLock()
    private var connections: Set<Int32> = []
    private var paths: [String] = []
    private var heads: [[UInt8]] = []
    private var stopped = false

    /// Starts listening at once; replies by request path (without its query), 404 otherwise.
    public init(_ routes: [String: Reply]) throws {
        self.routes = routes
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HostileServerError(what: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw HostileServerError(what: "bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The paths requested so far, in order of arrival.
    public var requestedPaths: [String] { lock.withLock { paths } }

    /// The request heads received so far, as bytes (a test looks for what must not be there).
    public var requestHeads: [[UInt8]] { lock.withLock { heads } }

    /// Stops accepting and ends every open connection (held ones included).
    public func stop() {
        let open: Set<Int32> = lock.withLock {
            stopped = true
            return connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                break
            }
            let admitted = lock.withLock { () -> Bool in
                if stopped { return false }
                connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                break
            }
            Thread.detachNewThread { [self] in serve(fd) }
        }
        close(listener)
    }

    private func serve(_ fd: Int32) {
        defer {
            lock.withLock { _ = connections.remove(fd) }
            close(fd)
        }
        while let (path, head) = readRequestHead(fd) {
            lock.withLock {
                paths.append(path)
                heads.append(head)
            }
            let reply = routes[path] ?? Reply("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            guard send(fd, reply.head) else { return }
            if let gate = reply.gate {
                gate.arrived.signal()
                gate.opened.wait()
            }
            for _ in 0..<max(reply.repeatCount, 0) { guard send(fd, reply.unit) else { return } }
            guard send(fd, reply.tail) else { return }
            if !reply.holdsOpen { return }
        }
    }

    /// Reads one request head; nil at end of stream or past 64 KiB without one. A held
    /// connection waits here until the client closes it or `stop` shuts it down.
    private func readRequestHead(_ fd: Int32) -> (path: String, head: [UInt8])? {
        var head: [UInt8] = []
        var buffer: [UInt8] = [0]
        while !head.ends(with: [13, 10, 13, 10]) && head.count < 65536 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 1, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            head.append(buffer[0])
        }
        let line = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        guard line.count >= 2 else { return nil }
        return (String(line[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]), head)
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }
}

public struct HostileServerError: Error, CustomStringConvertible {
    public var what: String
    public var description: String { what }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

extension HostileServer {
    /// A zstd frame (RFC 8878) of `blocks` RLE blocks of 128 KiB of zeros each: 4 bytes on
    /// the wire per 128 KiB decoded (32,768:1), a decompression bomb sized by its block count.
    public static func zstdZeros(blocks: Int) -> (head: [UInt8], unit: [UInt8], tail: [UInt8]) {
        // Magic, frame header descriptor 0 (no content size, no checksum), window 2^17.
        let head: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3]
        func block(last: Bool) -> [UInt8] {
            let header = UInt32(128 * 1024) << 3 | 1 << 1 | (last ? 1 : 0)  // Block_Size, RLE, Last_Block
            return [UInt8(header & 0xFF), UInt8((header >> 8) & 0xFF), UInt8((header >> 16) & 0xFF), 0]
        }
        return (head, block(last: false), block(last: true))
    }

    /// A response whose body is `zstdZeros(blocks:)`, without Content-Length (closed at its end).
    public static func zstdBomb(blocks: Int) -> Reply {
        let frame = zstdZeros(blocks: blocks)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Encoding: zstd\r\nConnection: close\r\n\r\n".utf8)
        return Reply(head + frame.head, repeating: frame.unit, count: max(blocks - 1, 0), tail: frame.tail)
    }
}
