import BackgroundWire
import Foundation

/// Where the background commands find their daemon: this user's, through its socket, or
/// another machine's, through ssh (`--host ssh://…`).
public enum DaemonEndpoint: Sendable, Equatable {
    case local(DaemonPaths)
    case ssh(SSHDestination)

    /// A client that has said hello. The daemon is started when `start` and none runs (on a
    /// remote host by `transfertop daemon dial-stdio`, `--no-start` otherwise). A remote
    /// daemon of another version is refused: the two ends would not agree on the protocol, and
    /// only its own host can replace it.
    /// `interactive`: ssh may prompt and speak on stderr (`SSHChannel`).
    public func connect(start: Bool, environment: [String: String], interactive: Bool = true) throws(DaemonError) -> DaemonClient {
        switch self {
        case .local(let paths):
            return try DaemonClient.connect(paths, start: start)
        case .ssh(let destination):
            let channel = try SSHChannel.open(destination, environment: environment, interactive: interactive, start: start)
            let reply: DaemonReply?
            do {
                try channel.send(DaemonRequest.hello(version: DaemonServer.version))
                reply = try channel.receive(DaemonReply.self)
            } catch {
                throw DaemonError("\(destination): \(error.message)" + Self.why(start: start, interactive: interactive))
            }
            guard case .hello(let version, let pid, _)? = reply else {
                throw DaemonError("\(destination): no daemon answered through ssh" + Self.why(start: start, interactive: interactive))
            }
            guard version == DaemonServer.version else {
                throw DaemonError("\(destination): its daemon is version \(version), this transfertop is \(DaemonServer.version); "
                                  + "install the same version on both")
            }
            return DaemonClient(channel: channel, version: version, pid: pid)
        }
    }

    /// What a failed remote hello may mean. Interactive, ssh's own message is on stderr above.
    static func why(start: Bool, interactive: Bool) -> String {
        switch (start, interactive) {
        case (true, true): return " (is transfertop installed there? ssh said why above)"
        case (false, true): return " (none runs there, or ssh said why above)"
        case (true, false): return " (ssh could not connect without asking, or transfertop is not installed there)"
        case (false, false): return " (none runs there, or ssh could not connect without asking)"
        }
    }

    /// Shown in messages: the socket's path or the ssh address.
    public var description: String {
        switch self {
        case .local(let paths): return paths.socket
        case .ssh(let destination): return destination.description
        }
    }
}
