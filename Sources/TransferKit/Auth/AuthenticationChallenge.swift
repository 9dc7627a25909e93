import Foundation

/// Where a credential applies, as URLSession's `URLProtectionSpace`: the server
/// (or proxy), its realm and the authentication method it asked for.
public struct ProtectionSpace: Sendable, Hashable {
    public enum Method: String, Sendable, Hashable {
        case httpBasic = "Basic", httpDigest = "Digest", serverTrust = "ServerTrust"
    }

    public var host: String
    public var port: Int
    /// "http" or "https".
    public var `protocol`: String
    public var realm: String?
    public var authenticationMethod: Method
    /// A proxy's 407 rather than the server's 401.
    public var isProxy: Bool

    public init(host: String, port: Int, protocol: String, realm: String?, authenticationMethod: Method,
                isProxy: Bool = false) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.realm = realm
        self.authenticationMethod = authenticationMethod
        self.isProxy = isProxy
    }
}

/// A challenge (URLSession's `URLAuthenticationChallenge`): a 401 or 407 the engine holds
/// while the task delegate decides, or a server whose chain did not verify (session delegate).
public struct AuthenticationChallenge: Sendable {
    public var protectionSpace: ProtectionSpace
    /// How many credentials for this task were already refused (0 on the first challenge).
    public var previousFailureCount: Int
    /// The credential that was sent and refused, if any.
    public var proposedCredential: TransferCredential?
    /// The 401/407 response itself (nil for server trust).
    public var failureResponse: TransferResponse?
    /// For a server-trust challenge: what the failed verification saw.
    public var serverTrust: ServerTrust?

    public init(protectionSpace: ProtectionSpace, previousFailureCount: Int, proposedCredential: TransferCredential?,
                failureResponse: TransferResponse?, serverTrust: ServerTrust? = nil) {
        self.protectionSpace = protectionSpace
        self.previousFailureCount = previousFailureCount
        self.proposedCredential = proposedCredential
        self.failureResponse = failureResponse
        self.serverTrust = serverTrust
    }
}

/// A server whose certificate chain did not verify, shown to the session delegate's
/// `didReceive challenge`. `.useCredential` (the credential is ignored) trusts this server's
/// leaf key for the rest of the session; anything else fails the task.
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
    /// Retry the request with the credential given alongside (none given: as
    /// `performDefaultHandling`). For server trust: trust the server's key.
    case useCredential
    /// As if there were no delegate method: the credential store's credential for the space,
    /// once; otherwise the 401/407 is the task's response. For server trust: fail, as curl.
    case performDefaultHandling
    /// Fail the task with `.cancelled`.
    case cancelAuthenticationChallenge
    /// Refuse this space: the 401/407 is the task's response.
    case rejectProtectionSpace
}
