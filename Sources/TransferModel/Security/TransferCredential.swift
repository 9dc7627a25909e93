import Foundation

/// A user name and password for HTTP authentication (URLCredential's
/// `init(user:password:persistence:)`). The password never appears in a description, a log
/// line or an export.
public struct TransferCredential: Sendable, Equatable, CustomStringConvertible {
    /// How long a credential given to a challenge is kept (URLCredential.Persistence), in
    /// the session's `CredentialStore`.
    public enum Persistence: String, Sendable, Equatable {
        /// Used for this task only.
        case none
        /// Kept in the session's store, in memory, until the process ends.
        case forSession
        /// Also written to the store's netrc file, readable only by the user (0600): never
        /// clear text anywhere else (DECISIONS 89).
        case permanent
    }

    public var user: String
    public var password: String
    public var persistence: Persistence

    public init(user: String, password: String, persistence: Persistence = .forSession) {
        self.user = user
        self.password = password
        self.persistence = persistence
    }

    public var description: String { "TransferCredential(user: \(user), password: ••••, \(persistence.rawValue))" }
}

/// Which HTTP authentication schemes a credential may be sent with (curl's `--basic`,
/// `--digest`, `--anyauth`). Basic sends the password with the first request, as curl's
/// default; digest and any wait for the server's 401 and answer its challenge.
public enum HTTPAuthentication: String, Sendable, Equatable, CaseIterable, Codable {
    case basic, digest, any
}

/// `~/.netrc`-style credentials looked up by host for each hop (curl's `--netrc`,
/// `--netrc-file`): only the machine a hop goes to can match, so a redirect to another host
/// never carries the first host's entry.
public struct NetrcUse: Sendable, Equatable, Codable {
    /// nil: libcurl's default, `$HOME/.netrc`.
    public var file: String?
    public init(file: String? = nil) { self.file = file }
}
