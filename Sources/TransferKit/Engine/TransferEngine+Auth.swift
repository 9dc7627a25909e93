import CCurl
import Foundation

/// The challenge step of the task life cycle (DECISIONS 87-90): a 401 (or a plain
/// proxy's 407) offering Basic or Digest is held like a redirect hop, its body kept aside;
/// when the hop ends the task delegate (or, by default, the credential store) decides, and a
/// credential starts the same request again on a new handle with CURLOPT_USERNAME/PASSWORD
/// (or PROXYUSERNAME/PASSWORD) and the scheme that was asked for. Each refused credential
/// counts in `previousFailureCount`; after `maximumChallenges` refusals the 401 is the task's
/// response (Apple's URLSession would ask forever; a CLI must not loop).
extension TransferEngine {
    static let maximumChallenges = 5

    /// The hop's credentials, first match wins:
    /// 1. the credential a challenge of this hop's own origin was answered with;
    /// 2. the configuration's (`-u`), where the hop may carry credentials (DECISIONS 80);
    /// 3. the credential store's for this hop's own origin (host, port, scheme);
    /// 4. the store's for the task's origin, only where the hop may carry credentials.
    /// A proxy's credential goes only to the proxy. netrc is libcurl's, by the hop's host.
    func configureAuthentication(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        t.sentCredential = nil
        let url = t.request.url, origin = t.task.originalRequest.url
        let allowed = RedirectPolicy.credentialsAllowed(origin: origin, hop: url, trusted: configuration.redirectsKeepCredentials)
        var credential: TransferCredential? = nil
        var scheme = configuration.httpAuthentication
        if let c = t.credential, let space = t.credentialSpace, !space.isProxy, Self.sameOrigin(space, url) {
            credential = c
            scheme = space.authenticationMethod == .httpDigest ? .digest : .basic
        } else if let c = configuration.credential, allowed {
            credential = c
        } else if let c = storedCredential(for: url) {
            credential = c
        } else if allowed, let c = storedCredential(for: origin) {
            credential = c
        }
        if let credential {
            try e.set(CURLOPT_USERNAME, credential.user)
            try e.set(CURLOPT_PASSWORD, credential.password)
            try e.set(CURLOPT_HTTPAUTH, Int(bitPattern: Self.authMask(scheme)))
            t.sentCredential = credential
        }
        if let c = t.credential, let space = t.credentialSpace, space.isProxy {
            try e.set(CURLOPT_PROXYUSERNAME, c.user)
            try e.set(CURLOPT_PROXYPASSWORD, c.password)
            try e.set(CURLOPT_PROXYAUTH, Int(bitPattern: Self.authMask(space.authenticationMethod == .httpDigest ? .digest : .basic)))
            t.sentCredential = c
        }
        // netrc only where the hop may carry credentials, as `-u`: a netrc `default` entry
        // matches every host, so a redirect to another host (or from https to http) would
        // otherwise be handed a password. And with the scheme asked for: without HTTPAUTH
        // libcurl answers with Basic, so `--digest --netrc` would put the password on the
        // wire (found in review).
        if let netrc = configuration.netrc, allowed {
            try e.set(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            if let file = netrc.file { try e.set(CURLOPT_NETRC_FILE, file) }
            if credential == nil {
                try e.set(CURLOPT_HTTPAUTH, Int(bitPattern: Self.authMask(configuration.httpAuthentication)))
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
        guard let host = url.host else { return nil }
        return credentials.credential(host: host, port: Self.port(of: url), scheme: url.scheme ?? "http", realm: nil, isProxy: false)
    }

    /// From the response head: true when it is a challenge held for the delegate. Any other
    /// head means the credential sent worked: it is stored as its persistence asks.
    func holdChallenge(_ t: Transfer, _ response: TransferResponse) -> Bool {
        guard response.statusCode == 401 || response.statusCode == 407 else {
            if let (c, space) = t.credentialToStore {
                credentials.set(c, for: space)
                t.credentialToStore = nil
            }
            return false
        }
        guard let space = challengeSpace(t, response) else { return false }
        t.credentialToStore = nil
        t.exchange.keepAside(.challenge(space))  // its body is kept aside, as a 3xx's
        return true
    }

    /// The challenged hop ended: ask the delegate, or decide by default.
    func askChallenge(_ t: Transfer, _ space: ProtectionSpace) {
        // A failure is a hop that *ended* with 401/407 after sending a credential: libcurl's
        // own Digest probe (401, then 200 on the same hop) is not one.
        if t.sentCredential != nil { t.authFailures += 1 }
        guard t.authFailures < Self.maximumChallenges else {
            applyChallengeAnswer(t, .rejectProtectionSpace, nil, asked: false)
            return
        }
        let challenge = AuthenticationChallenge(protectionSpace: space, previousFailureCount: t.authFailures,
                                                proposedCredential: t.sentCredential, failureResponse: t.response)
        let session = t.task.session
        guard let delegate = session.delegate as? any TransferTaskDelegate else {
            applyChallengeAnswer(t, .performDefaultHandling, nil, asked: false)
            return
        }
        t.exchange.awaitChallengeAnswer()
        let task = t.task
        session.deliver(awaited: true) { [self] in
            session.emit(.delegateCallback("didReceiveChallenge"), task: task,
                         detail: "\(space.authenticationMethod.rawValue) \(space.host):\(space.port) failures \(challenge.previousFailureCount)")
            delegate.session(session, task: task, didReceive: challenge) { [self] disposition, credential in
                _ = send(.challenge(task, disposition, credential))
            }
        }
    }

    func applyChallengeAnswer(_ t: Transfer, _ disposition: AuthChallengeDisposition, _ credential: TransferCredential?,
                              asked: Bool = true) {
        if asked {
            guard t.exchange.challengeAnswered() else { return }
        }
        guard let response = t.response, let challenged = challengeSpace(t, response) else { return }
        var answer: TransferCredential? = nil
        switch disposition {
        case .useCredential:
            answer = credential ?? defaultCredential(t, challenged)
        case .performDefaultHandling:
            answer = defaultCredential(t, challenged)
        case .cancelAuthenticationChallenge:
            finish(t, error: TransferError(.cancelled, "the authentication challenge was cancelled",
                                           failingURL: Redaction.redactURL(t.request.url.absoluteString)))
            return
        case .rejectProtectionSpace:
            answer = nil
        }
        guard let answer, t.authFailures < Self.maximumChallenges else {
            deliverRedirectAsFinal(t)  // the 401/407 and its body are the task's response
            finish(t, error: nil)
            return
        }
        t.credential = answer
        t.credentialSpace = challenged
        t.credentialToStore = answer.persistence == .none ? nil : (answer, challenged)
        followRedirect(t, t.request, isRedirect: false)
    }

    /// As URLSession without a delegate method: the store's credential for the space, unless
    /// one was already refused.
    private func defaultCredential(_ t: Transfer, _ space: ProtectionSpace) -> TransferCredential? {
        guard t.authFailures == 0 else { return nil }
        return credentials.credential(for: space)
    }

    /// The space a 401/407 names: Digest preferred when offered (as libcurl's CURLAUTH_ANY);
    /// nil when it offers neither Basic nor Digest (then it is simply the response).
    func challengeSpace(_ t: Transfer, _ response: TransferResponse) -> ProtectionSpace? {
        let isProxy = response.statusCode == 407
        let field = isProxy ? "proxy-authenticate" : "www-authenticate"
        let challenges = AuthChallenge.parse(response.headers.filter { $0.name.lowercased() == field }.map(\.value))
        guard let chosen = challenges.first(where: { $0.scheme.lowercased() == "digest" })
                ?? challenges.first(where: { $0.scheme.lowercased() == "basic" }) else { return nil }
        let method: ProtectionSpace.Method = chosen.scheme.lowercased() == "digest" ? .httpDigest : .httpBasic
        if isProxy {
            guard let proxy = configuration.proxy.flatMap(URL.init(string:)), let host = proxy.host else { return nil }
            return ProtectionSpace(host: host, port: Self.port(of: proxy), protocol: proxy.scheme?.lowercased() ?? "http",
                                   realm: chosen.realm, authenticationMethod: method, isProxy: true)
        }
        let url = t.request.url
        return ProtectionSpace(host: url.host ?? "", port: Self.port(of: url), protocol: url.scheme?.lowercased() ?? "http",
                               realm: chosen.realm, authenticationMethod: method)
    }

    static func port(of url: URL) -> Int { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }

    static func sameOrigin(_ space: ProtectionSpace, _ url: URL) -> Bool {
        space.host.lowercased() == (url.host ?? "").lowercased() && space.port == port(of: url)
            && space.protocol == (url.scheme?.lowercased() ?? "")
    }
}
