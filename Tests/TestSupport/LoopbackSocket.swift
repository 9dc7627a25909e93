import Foundation

/// A TCP socket bound to 127.0.0.1 or ::1 on a port the kernel picks, listening or not. Bound
/// but not listening, the kernel refuses every connection to its port, and nothing else can take
/// the port while the socket holds it (a port found by binding and closing could be taken by
/// another process before the test used it).
public final class LoopbackSocket: @unchecked Sendable {
    // @unchecked: both fields are immutable; the descriptor is closed once, in deinit.
    public let fd: Int32
    public let port: Int

    public init(ipv6: Bool = false, listening: Bool) throws {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        guard Self.bindLoopback(fd, ipv6: ipv6) == 0, !listening || listen(fd, 4) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EINVAL)
        }
        self.fd = fd
        port = Self.boundPort(fd, ipv6: ipv6)
    }

    static func bindLoopback(_ fd: Int32, ipv6: Bool) -> Int32 {
        if ipv6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    static func boundPort(_ fd: Int32, ipv6: Bool) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let raw = withUnsafePointer(to: &storage) { p in
            ipv6 ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
                 : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        return Int(UInt16(bigEndian: raw))
    }

    deinit { close(fd) }
}
