import BackgroundWire
import Foundation

/// `transfertop daemon dial-stdio`, the remote end of `--host ssh://…`: connects to this
/// user's daemon (starting it as any background command would) and copies bytes both ways
/// between it and stdin/stdout until either side ends. ssh runs it; nothing listens on the
/// network.
public enum StdioBridge {
    /// `start`: start the daemon when none runs, as a local background command would; without
    /// it (the monitor's reconnections) a stopped daemon stays stopped.
    public static func run(_ paths: DaemonPaths, start: Bool) -> Int32 {
        do {
            // Started (if asked) and of this version (an idle older one is replaced), as a local
            // command makes sure; the bytes then go over a connection of their own.
            _ = try DaemonClient.connect(paths, start: start)
            let daemon = try LineChannel.connect(paths.socket)
            let toDaemon = Thread {
                copy(from: STDIN_FILENO, to: daemon.fd)
                _ = Glibc.shutdown(daemon.fd, Int32(SHUT_WR))  // the client is done asking
            }
            toDaemon.start()
            copy(from: daemon.fd, to: STDOUT_FILENO)  // until the daemon closes: then end
            return 0
        } catch {
            FileHandle.standardError.write(Data("transfertop daemon dial-stdio: \(error.message)\n".utf8))
            return 1
        }
    }

    /// Copies until end of file or an error on either side.
    static func copy(from source: Int32, to target: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            var off = 0
            while off < n {
                let w = buffer.withUnsafeBytes { write(target, $0.baseAddress! + off, n - off) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { return }
                off += w
            }
        }
    }
}
