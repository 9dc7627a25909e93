import BackgroundWire
import Foundation

/// The daemon's listening socket. The caller holds the `DaemonLock`, so a socket file already
/// at the path is a crashed daemon's and is replaced. Mode 0600 inside a 0700 directory, and
/// each peer's uid checked (SO_PEERCRED): only this user's processes are served.
public final class UnixListener: @unchecked Sendable {
    // @unchecked: `fd` and `path` are fixed after init.
    let fd: Int32
    public let path: String

    public init(path: String) throws(DaemonError) {
        self.path = path
        unlink(path)
        var address = try UnixAddress.make(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonError("socket: \(String(cString: strerror(errno)))") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, chmod(path, 0o600) == 0, listen(fd, 128) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw DaemonError("cannot listen at '\(path)': \(String(cString: strerror(e)))")
        }
    }

    /// Accepts on a thread of its own until `close()`; each connection of this user gets a
    /// thread running `handle`. Another user's connection is closed unanswered.
    public func serve(_ handle: @escaping @Sendable (LineChannel) -> Void) {
        let fd = self.fd
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    switch errno {
                    case EBADF, EINVAL, ENOTSOCK: return  // closed
                    case EMFILE, ENFILE, ENOBUFS, ENOMEM: usleep(100_000); continue  // out of descriptors: later
                    default: continue
                    }
                }
                // Not inherited by what the daemon starts (accept4 needs _GNU_SOURCE in Swift).
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                let channel = LineChannel(fd: client)
                guard Self.admits(peer: channel.peerUID) else { continue }  // deinit closes it
                Thread.detachNewThread { handle(channel) }
            }
        }
    }

    /// Same user only (root's processes are not let in to a user's daemon either).
    static func admits(peer: uid_t?) -> Bool { peer == geteuid() }

    /// Stops accepting and removes the socket file.
    public func close() {
        unlink(path)
        _ = shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}
