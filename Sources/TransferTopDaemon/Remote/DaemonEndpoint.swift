import BackgroundWire
import Foundation

/// Where the background commands find their daemon: this user's, through its socket, or
/// another machine's, through ssh (`--host ssh://…`).
public enum DaemonEndpoint: Sendable, Equatable {
    case local(DaemonPaths)
    case ssh(SSHDestination)

    /// A client that has said hello. Locally the daemon is started when `start` and none runs;
    /// on a remote host `transfertop daemon dial-stdio` always starts it (as a local command
    /// would there). A remote daemon of another version is refused: the two ends would not
    /// agree on the protocol, and only its own host can replace it.
    /// `interactive`: ssh may prompt and speak on stderr (`SSHChannel`).
    public func connect(start: Bool, environment: [String: String], interactive: Bool = true) throws(DaemonError) -> DaemonClient {
        switch self {
        case .local(let paths):
            return try DaemonClient.connect(paths, start: start)
        case .ssh(let destination):
            let channel = try SSHChannel.open(destination, environment: environment, interactive: interactive)
            try channel.send(DaemonRequest.hello(version: DaemonServer.version))
            let reply: DaemonReply?
            do { reply = try channel.receive(DaemonReply.self) } catch {
                throw DaemonError("\(destination): \(error.message) (is transfertop installed there? ssh said why above)")
            }
            guard case .hello(let version, let pid, _)? = reply else {
                throw DaemonError("\(destination): no daemon answered through ssh (is transfertop installed there? ssh said why above)")
            }
            guard version == DaemonServer.version else {
                throw DaemonError("\(destination): its daemon is version \(version), this transfertop is \(DaemonServer.version); "
                                  + "install the same version on both")
            }
            return DaemonClient(channel: channel, version: version, pid: pid)
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
