import BackgroundWire
import Foundation

/// A daemon on another machine, reached through OpenSSH as `docker -H ssh://` does:
/// `ssh://[user@]host[:port][/NAME]`. ssh's own configuration, agent and known_hosts apply;
/// transfertop opens no port and keeps no secret of its own.
public struct SSHDestination: Sendable, Equatable, CustomStringConvertible {
    public var user: String?
    public var host: String
    public var port: Int?
    /// The background session named after the host (`/NAME`), if any.
    public var session: String?

    public init(user: String? = nil, host: String, port: Int? = nil, session: String? = nil) {
        (self.user, self.host, self.port, self.session) = (user, host, port, session)
    }

    /// Whether `text` is meant as a remote daemon (it starts with `ssh://`).
    public static func isRemote(_ text: String) -> Bool { text.lowercased().hasPrefix("ssh://") }

    /// Parses `ssh://[user@]host[:port][/NAME]`; the error says what is wrong. A user or host
    /// that ssh would read as an option (a leading `-`) or that holds a space or a control
    /// character is refused: the words go to ssh's command line.
    public static func parse(_ text: String) throws(DaemonError) -> SSHDestination {
        guard isRemote(text) else { throw DaemonError("'\(text)' is not an ssh:// address (ssh://[user@]host[:port][/NAME])") }
        var rest = Substring(text.dropFirst("ssh://".count))
        var session: String?
        if let slash = rest.firstIndex(of: "/") {
            let name = rest[rest.index(after: slash)...]
            session = name.isEmpty ? nil : String(name)
            rest = rest[..<slash]
        }
        var user: String?
        if let at = rest.lastIndex(of: "@") {
            user = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
            // ssh://user:password@host: a password would reach ssh's argv (ps) and messages.
            guard user?.contains(":") != true else { throw DaemonError("ssh://: no password in the address; ssh asks for it, or use a key or an agent") }
            guard let u = user, Self.isWord(u) else { throw DaemonError("ssh://: the user in '\(text)' is empty or not a plain name") }
        }
        var port: Int?
        // A bracketed IPv6 literal keeps its colons: [::1]:2222.
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { port = try Self.parsePort(after.dropFirst(), text) } else if !after.isEmpty {
                throw DaemonError("ssh://: unexpected '\(after)' after the address in '\(text)'")
            }
            rest = rest[rest.index(after: rest.startIndex)..<close]
        } else if let colon = rest.lastIndex(of: ":") {
            port = try Self.parsePort(rest[rest.index(after: colon)...], text)
            rest = rest[..<colon]
        }
        let host = String(rest)
        guard Self.isWord(host) else { throw DaemonError("ssh://: the host in '\(text)' is empty or not a plain name") }
        return SSHDestination(user: user, host: host, port: port, session: session)
    }

    private static func parsePort(_ digits: Substring, _ text: String) throws(DaemonError) -> Int {
        guard let n = Int(digits), (1...65535).contains(n) else { throw DaemonError("ssh://: the port in '\(text)' is not 1-65535") }
        return n
    }

    /// Non-empty, no leading `-`, no space, control character, quote or shell character.
    private static func isWord(_ s: String) -> Bool {
        guard let first = s.first, first != "-" else { return false }
        return s.unicodeScalars.allSatisfy { c in
            c.value > 0x20 && c.value != 0x7F && !"'\"`$;&|<>\\(){}*?!#~".unicodeScalars.contains(c)
        }
    }

    /// The arguments after `ssh`: options, `--`, the destination, then the remote command.
    /// `batch`: ssh may not prompt (`-o BatchMode=yes`).
    public func sshArguments(remoteCommand: [String], batch: Bool = false) -> [String] {
        var words: [String] = batch ? ["-o", "BatchMode=yes"] : []
        if let port { words += ["-p", String(port)] }
        if let user { words += ["-l", user] }
        // No terminal: the channel carries the daemon's JSON lines, byte for byte.
        words += ["-T", "--", host]
        return words + remoteCommand
    }

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "ssh://" + (user.map { $0 + "@" } ?? "") + shownHost + (port.map { ":\($0)" } ?? "") + (session.map { "/" + $0 } ?? "")
    }
}
