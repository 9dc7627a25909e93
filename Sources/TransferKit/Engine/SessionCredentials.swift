import CCurl
import Foundation

/// The challenge step of the task life cycle (DECISIONS 87-90): a 401 (or a plain
/// proxy's 407) offering Basic or Digest is held like a redirect hop, its body kept aside;
/// when the hop ends the task delegate (or, by default, the credential store) decides, and a
/// credential starts the same request again on a new handle with CURLOPT_USERNAME/PASSWORD
/// (or PROXYUSERNAME/PASSWORD) and the scheme that was asked for. Each refused credential
/// counts in `previousFailureCount`; after `maximumChallenges` refusals the 401 is the task's
/// response (Apple's URLSession would ask forever; a CLI must not loop).
///
/// Holds the session's credential store (made on first use) and the configuration's
/// credential settings; the engine performs what an answer means (`ChallengeOutcome`). Used
/// on the transfer thread only.
final class SessionCredentials {
    static let maximumChallenges = 5

    /// The configuration's `credential` (`-u`), `httpAuthentication`, `netrc`,
    /// `redirectsKeepCredentials` and `proxy`.
    let configured: TransferCredential?
    let scheme: HTTPAuthentication
    let netrc: NetrcUse?
    let redirectsKeepCredentials: Bool
    let proxy: String?
    /// The session's credentials: the configuration's store, else by kind (DECISIONS 89).
    lazy var store: CredentialStore = configuredStore
        ?? (isEphemeral ? CredentialStore() : .shared(stateDirectory: stateDirectory))
    private let configuredStore: CredentialStore?
    private let isEphemeral: Bool
    private let stateDirectory: String?

    init(configuration: TransferConfiguration) {
        configured = configuration.credential
        scheme = configuration.httpAuthentication
        netrc = configuration.netrc
        redirectsKeepCredentials = configuration.redirectsKeepCredentials
        proxy = configuration.proxy
        configuredStore = configuration.credentialStore
        isEphemeral = configuration.kind == .ephemeral
        stateDirectory = configuration.stateDirectory
    }

    /// A credential and the scheme it is sent with.
    struct HopCredential: Equatable {
        var credential: TransferCredential
        var scheme: HTTPAuthentication
    }

    /// The hop's credentials, first match wins:
    /// 1. the credential a challenge of this hop's own origin was answered with;
    /// 2. the configuration's (`-u`), where the hop may carry credentials (DECISIONS 80);
    /// 3. the credential store's for this hop's own origin (host, port, scheme);
    /// 4. the store's for the task's origin, only where the hop may carry credentials.
    /// `stored` looks a URL's origin up in the store (asked only when it decides).
    static func hopCredential(answered: TransferCredential?, answeredSpace: ProtectionSpace?,
                              configured: TransferCredential?, configuredScheme: HTTPAuthentication,
                              hop: URL, origin: URL, credentialsAllowed allowed: Bool,
                              stored: (URL) -> TransferCredential?) -> HopCredential? {
        if let c = answered, let space = answeredSpace, !space.isProxy, sameOrigin(space, hop) {
            return HopCredential(credential: c, scheme: space.authenticationMethod == .httpDigest ? .digest : .basic)
        }
        if let c = configured, allowed { return HopCredential(credential: c, scheme: configuredScheme) }
        if let c = stored(hop) { return HopCredential(credential: c, scheme: configuredScheme) }
        if allowed, let c = stored(origin) { return HopCredential(credential: c, scheme: configuredScheme) }
        return nil
    }

    /// A proxy's credential goes only to the proxy: the one a 407 was answered with.
    static func proxyCredential(answered: TransferCredential?, answeredSpace: ProtectionSpace?) -> HopCredential? {
        guard let c = answered, let space = answeredSpace, space.isProxy else { return nil }
        return HopCredential(credential: c, scheme: space.authenticationMethod == .httpDigest ? .digest : .basic)
    }

    /// Sets the hop's credentials on its handle (`hopCredential`, `proxyCredential`). netrc is
    /// libcurl's, by the hop's host.
    func configure(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        t.sentCredential = nil
        let url = t.request.url, origin = t.task.originalRequest.url
        let allowed = RedirectPolicy.credentialsAllowed(origin: origin, hop: url, trusted: redirectsKeepCredentials)
        let chosen = Self.hopCredential(answered: t.credential, answeredSpace: t.credentialSpace, configured: configured,
                                        configuredScheme: scheme, hop: url, origin: origin, credentialsAllowed: allowed,
                                        stored: storedCredential(for:))
        if let chosen {
            try e.set(CURLOPT_USERNAME, chosen.credential.user)
            try e.set(CURLOPT_PASSWORD, chosen.credential.password)
            try e.set(CURLOPT_HTTPAUTH, Int(bitPattern: Self.authMask(chosen.scheme)))
            t.sentCredential = chosen.credential
        }
        if let proxied = Self.proxyCredential(answered: t.credential, answeredSpace: t.credentialSpace) {
            try e.set(CURLOPT_PROXYUSERNAME, proxied.credential.user)
            try e.set(CURLOPT_PROXYPASSWORD, proxied.credential.password)
            try e.set(CURLOPT_PROXYAUTH, Int(bitPattern: Self.authMask(proxied.scheme)))
            t.sentCredential = proxied.credential
        }
        // netrc only where the hop may carry credentials, as `-u`: a netrc `default` entry
        // matches every host, so a redirect to another host (or from https to http) would
        // otherwise be handed a password. And with the scheme asked for: without HTTPAUTH
        // libcurl answers with Basic, so `--digest --netrc` would put the password on the
        // wire.
        if let netrc, allowed {
            try e.set(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            if let file = netrc.file { try e.set(CURLOPT_NETRC_FILE, file) }
            if chosen == nil {
                try e.set(CURLOPT_HTTPAUTH, Int(bitPattern: Self.authMask(scheme)))
            }
        }
    }

    static func authMask(_ scheme: HTTPAuthentication) -> UInt {
        switch scheme {
        case .basic: TK_CURLAUTH_BASIC
        case .digest: TK_CURLAUTH_DIGEST
        case .any: TK_CURLAUTH_ANY
        }
    }

    private func storedCredential(for url: URL) -> TransferCredential? {
        // Nothing stored, the usual case: the URL's parts are not worked out (Foundation parses
        // them again at each access: a sixth of a small request's set-up).
        guard !store.isEmpty, let host = url.host else { return nil }
        return store.credential(host: host, port: Self.port(of: url), scheme: url.scheme ?? "http", realm: nil, isProxy: false)
    }

    /// From the response head: true when it is a challenge held for the delegate. Any other
    /// head means the credential sent worked: it is stored as its persistence asks.
    func holdChallenge(_ t: Transfer, _ response: TransferResponse) -> Bool {
        guard response.statusCode == 401 || response.statusCode == 407 else {
            if let (c, space) = t.credentialToStore {
                store.set(c, for: space)
                t.credentialToStore = nil
            }
            return false
        }
        guard let space = challengeSpace(t, response) else { return false }
        t.credentialToStore = nil
        t.exchange.keepAside(.challenge(space))  // its body is kept aside, as a 3xx's
        return true
    }

    /// The challenged hop ended: asks the task delegate, whose answer goes to `reply`, or
    /// returns the answer to apply at once (no delegate, or too many refusals).
    func challenge(_ t: Transfer, _ space: ProtectionSpace,
                   reply: @escaping @Sendable (TransferTask, AuthChallengeDisposition, TransferCredential?) -> Void)
        -> AuthChallengeDisposition? {
        // A failure is a hop that *ended* with 401/407 after sending a credential: libcurl's
        // own Digest probe (401, then 200 on the same hop) is not one.
        if t.sentCredential != nil { t.authFailures += 1 }
        guard t.authFailures < Self.maximumChallenges else { return .rejectProtectionSpace }
        let challenge = AuthenticationChallenge(protectionSpace: space, previousFailureCount: t.authFailures,
                                                proposedCredential: t.sentCredential, failureResponse: t.response)
        let session = t.task.session
        guard let delegate = session.delegate as? any TransferTaskDelegate else { return .performDefaultHandling }
        t.exchange.awaitChallengeAnswer()
        let task = t.task
        session.deliver(awaited: true) {
            session.emit(.delegateCallback("didReceiveChallenge"), task: task,
                         detail: "\(space.authenticationMethod.rawValue) \(space.host):\(space.port) failures \(challenge.previousFailureCount)")
            delegate.session(session, task: task, didReceive: challenge) { disposition, credential in
                reply(task, disposition, credential)
            }
        }
        return nil
    }

    /// What an answer to a challenge means for the task.
    enum ChallengeOutcome: Equatable {
        /// Not an answer the transfer waits for: nothing happens.
        case ignored
        /// The challenge was cancelled: the task fails.
        case cancelled
        /// No credential (or too many refused): the 401/407 and its body are the response.
        case responseIsFinal
        /// A credential: the same request again on a new handle.
        case retry
    }

    /// Applies an answer (`asked`: the delegate's, through the command queue) to the transfer.
    func answer(_ t: Transfer, _ disposition: AuthChallengeDisposition, _ credential: TransferCredential?,
                asked: Bool) -> ChallengeOutcome {
        if asked {
            guard t.exchange.challengeAnswered() else { return .ignored }
        }
        guard let response = t.response, let challenged = challengeSpace(t, response) else { return .ignored }
        var answer: TransferCredential? = nil
        switch disposition {
        case .useCredential:
            answer = credential ?? defaultCredential(t, challenged)
        case .performDefaultHandling:
            answer = defaultCredential(t, challenged)
        case .cancelAuthenticationChallenge:
            return .cancelled
        case .rejectProtectionSpace:
            answer = nil
        }
        guard let answer, t.authFailures < Self.maximumChallenges else { return .responseIsFinal }
        t.credential = answer
        t.credentialSpace = challenged
        t.credentialToStore = answer.persistence == .none ? nil : (answer, challenged)
        return .retry
    }

    /// As URLSession without a delegate method: the store's credential for the space, unless
    /// one was already refused.
    private func defaultCredential(_ t: Transfer, _ space: ProtectionSpace) -> TransferCredential? {
        guard t.authFailures == 0 else { return nil }
        return store.credential(for: space)
    }

    func challengeSpace(_ t: Transfer, _ response: TransferResponse) -> ProtectionSpace? {
        Self.challengeSpace(statusCode: response.statusCode, headers: response.headers, hop: t.request.url, proxy: proxy)
    }

    /// The space a 401/407 names: Digest preferred when offered (as libcurl's CURLAUTH_ANY);
    /// nil when it offers neither Basic nor Digest (then it is simply the response). A 407's
    /// space is the configured proxy's.
    static func challengeSpace(statusCode: Int, headers: [HTTPHeader], hop url: URL, proxy: String?) -> ProtectionSpace? {
        let isProxy = statusCode == 407
        let field = isProxy ? "proxy-authenticate" : "www-authenticate"
        let challenges = AuthChallenge.parse(headers.filter { $0.name.lowercased() == field }.map(\.value))
        guard let chosen = challenges.first(where: { $0.scheme.lowercased() == "digest" })
                ?? challenges.first(where: { $0.scheme.lowercased() == "basic" }) else { return nil }
        let method: ProtectionSpace.Method = chosen.scheme.lowercased() == "digest" ? .httpDigest : .httpBasic
        if isProxy {
            guard let proxy = proxy.flatMap(URL.init(string:)), let host = proxy.host else { return nil }
            return ProtectionSpace(host: host, port: port(of: proxy), protocol: proxy.scheme?.lowercased() ?? "http",
                                   realm: chosen.realm, authenticationMethod: method, isProxy: true)
        }
        return ProtectionSpace(host: url.host ?? "", port: port(of: url), protocol: url.scheme?.lowercased() ?? "http",
                               realm: chosen.realm, authenticationMethod: method)
    }

    static func port(of url: URL) -> Int { RedirectPolicy.effectivePort(url) }

    static func sameOrigin(_ space: ProtectionSpace, _ url: URL) -> Bool {
        space.host.lowercased() == (url.host ?? "").lowercased() && space.port == port(of: url)
            && space.protocol == (url.scheme?.lowercased() ?? "")
    }
}
