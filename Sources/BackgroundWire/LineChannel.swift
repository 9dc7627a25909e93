import Foundation

/// One connection to or from the daemon: JSON values, one per line, over a Unix stream
/// socket. Blocking reads and writes on the caller's thread: the daemon gives each client a
/// thread of its own, and a client does one thing at a time. A reader and a writer may use
/// one channel at once (`wait` reads events while the keys write), never two of either.
public final class LineChannel: @unchecked Sendable {
    // @unchecked: `buffer` is touched by the one reader only; `fd` is fixed until `deinit`.
    package let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// A message bigger than this is refused (10,000 URLs are about 1 MiB).
    static let maxLine = 64 << 20

    public init(fd: Int32) { self.fd = fd }

    /// Connects to the daemon's socket. The error says whether nobody listens (no daemon) or
    /// the socket is somebody else's.
    public static func connect(_ path: String) throws(DaemonError) -> LineChannel {
        var address = try UnixAddress.make(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonError("socket: \(String(cString: strerror(errno)))") }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw DaemonError(e == ENOENT || e == ECONNREFUSED ? "no daemon listens at '\(path)'"
                              : "cannot connect to '\(path)': \(String(cString: strerror(e)))")
        }
        return LineChannel(fd: fd)
    }

    /// The uid of the process at the other end (SO_PEERCRED), nil if the kernel will not say.
    public var peerUID: uid_t? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: Swift sees the type only with
        // _GNU_SOURCE, the layout is fixed by the Linux ABI.
        var cred: (Int32, UInt32, UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: cred))
        return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) == 0 ? cred.1 : nil
    }

    public func send<T: Encodable>(_ value: T) throws(DaemonError) {
        let data: Data
        do { data = try JSONEncoder().encode(value) } catch { throw DaemonError("cannot encode a message: \(error)") }
        var bytes = [UInt8](data)
        bytes.append(0x0A)  // JSONEncoder never writes a raw newline (it escapes them in strings)
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a client gone away is an error here, not SIGPIPE for the daemon.
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw DaemonError("connection lost: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
    }

    /// The next value, or nil when the other side closed the connection.
    public func receive<T: Decodable>(_ type: T.Type) throws(DaemonError) -> T? {
        guard let line = try readLine() else { return nil }
        do { return try JSONDecoder().decode(type, from: Data(line)) } catch {
            throw DaemonError("unreadable message (\(line.count) bytes): \(error)")
        }
    }

    /// The next value that decodes, lines that do not (a newer peer's messages, damage) told
    /// to `skipped` and passed over; nil when the other side closed the connection.
    public func receiveSkipping<T: Decodable>(_ type: T.Type, skipped: (DaemonError) -> Void) throws(DaemonError) -> T? {
        while let line = try readLine() {
            do { return try JSONDecoder().decode(type, from: Data(line)) } catch {
                skipped(DaemonError("unreadable message (\(line.count) bytes): \(error)"))
            }
        }
        return nil
    }

    func readLine() throws(DaemonError) -> ArraySlice<UInt8>? {
        var scanned = start
        while true {
            if let nl = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = buffer[start..<nl]
                start = nl + 1
                return line
            }
            scanned = buffer.count
            if buffer.count - start > Self.maxLine { throw DaemonError("a message longer than \(Self.maxLine) bytes") }
            // Drop what was consumed before reading more, so the buffer holds one message.
            if start > 0 {
                buffer.removeFirst(start)
                scanned -= start
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw DaemonError(Self.timedOut) }
                throw DaemonError("connection lost: \(String(cString: strerror(errno)))")
            }
            if n == 0 {
                if buffer.count > start { throw DaemonError("connection closed in the middle of a message") }
                return nil
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// What `receive` throws when a receive timeout (`setReceiveTimeout`) passed first.
    public static let timedOut = "no answer in time"

    /// Bounds each wait of `receive` (nil: none, the default). For a peer that must answer at
    /// once; a connection that waits for events does not set one.
    public func setReceiveTimeout(_ seconds: Double?) {
        let s = seconds ?? 0
        var tv = timeval(tv_sec: Int(s), tv_usec: Int((s - s.rounded(.down)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Whether the other side is still there (it has not hung up), without reading.
    public var isOpen: Bool {
        let rdhup: Int16 = 0x2000  // POLLRDHUP, visible to Swift only with _GNU_SOURCE
        var p = pollfd(fd: fd, events: rdhup, revents: 0)
        guard poll(&p, 1, 0) >= 0 else { return false }
        return p.revents & (rdhup | Int16(POLLHUP) | Int16(POLLERR)) == 0
    }

    /// Ends the connection both ways; a thread blocked reading it returns nil.
    public func shutdown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    deinit { close(fd) }
}

public enum UnixAddress {
    public static func make(_ path: String) throws(DaemonError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw DaemonError("socket path too long (\(bytes.count) bytes, at most \(capacity - 1)): '\(path)'")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }
}
