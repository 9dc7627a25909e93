import Foundation

/// A user name and password, as URLSession's `URLCredential` (SPEC S12). Its description
/// never shows the password.
public struct TransferCredential: Sendable, Equatable, CustomStringConvertible {
    public enum Persistence: Sendable, Equatable {
        /// Used for this one request.
        case none
        /// Kept in the session's credential store until the process ends.
        case forSession
        /// Kept across runs: in a netrc file readable only by the user (0600), never in a
        /// world-readable file (`CredentialStore`).
        case permanent
    }

    public var user: String
    public var password: String
    public var persistence: Persistence

    public init(user: String, password: String, persistence: Persistence) {
        self.user = user
        self.password = password
        self.persistence = persistence
    }

    public var description: String { "TransferCredential(user: \(user), password: ***, \(persistence))" }
}

/// Where a credential applies, as URLSession's `URLProtectionSpace`: the server (or proxy),
/// its realm and the authentication method it asked for.
public struct ProtectionSpace: Sendable, Hashable {
    public enum Method: String, Sendable, Hashable {
        case httpBasic = "Basic", httpDigest = "Digest", serverTrust = "ServerTrust", other = "Other"
    }

    public var host: String
    public var port: Int
    /// "http" or "https".
    public var `protocol`: String
    public var realm: String?
    public var authenticationMethod: Method
    /// A 407 from a proxy rather than a 401 from the server.
    public var isProxy: Bool

    public init(host: String, port: Int, protocol: String, realm: String?, authenticationMethod: Method, isProxy: Bool = false) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.realm = realm
        self.authenticationMethod = authenticationMethod
        self.isProxy = isProxy
    }
}

/// A task-level challenge (URLSession's `URLAuthenticationChallenge`): a 401 or 407 the
/// engine holds while the delegate decides.
public struct AuthenticationChallenge: Sendable {
    public var protectionSpace: ProtectionSpace
    /// How many credentials for this task already failed (0 on the first challenge).
    public var previousFailureCount: Int
    /// The credential that was sent and refused, if any.
    public var proposedCredential: TransferCredential?
    /// The 401/407 response itself.
    public var failureResponse: TransferResponse?
    /// For a session-level server-trust challenge: what the failed verification saw.
    public var serverTrust: ServerTrust? = nil
}

/// A server whose certificate chain did not verify (SPEC S12), shown to the session
/// delegate's `didReceive challenge`. Answer `.useCredential` (the credential is ignored) to
/// trust this server's leaf key for the rest of the session; anything else fails the task.
public struct ServerTrust: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// The chain as the server sent it, leaf first, PEM.
    public var certificates: [String]
    /// libcurl's reason, e.g. "SSL certificate problem: self-signed certificate".
    public var reason: String
}

/// The delegate's answer to a challenge, as URLSession's `AuthChallengeDisposition`.
public enum AuthChallengeDisposition: Sendable, Equatable {
    /// Retry the request with the credential given alongside (none given: as `performDefaultHandling`).
    case useCredential
    /// As if there were no delegate method: the credential store's credential for the space,
    /// once; otherwise the 401/407 is the task's response.
    case performDefaultHandling
    /// Fail the task with `.cancelled`.
    case cancelAuthenticationChallenge
    /// Refuse this space: the 401/407 is the task's response.
    case rejectProtectionSpace
}
