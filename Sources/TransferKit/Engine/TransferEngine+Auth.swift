import CCurl
import Foundation

/// The challenge step of the task life cycle (SPEC S12, research A7): a 401 (or a proxy's
/// 407) is held like a redirect hop, its body kept aside; when the hop ends the delegate (or
/// the credential store, by default) decides, and `useCredential` starts the same request
/// again on a new handle with CURLOPT_USERNAME/PASSWORD and the scheme the server asked for.
/// Each refused credential counts in `previousFailureCount`; there is no loop: a delegate
/// that keeps answering with refused credentials is asked `maximumChallenges` times, then the
/// 401 is the task's response (Apple's URLSession would ask forever).
extension TransferEngine {
    static let maximumChallenges = 5

    /// The hop's credential: the one the delegate gave for this origin, else the store's for
    /// this server; never one for another origin unless `redirectsKeepCredentials` allows it
    /// (curl's `--location-trusted`, never from https to http).
    func configureAuth(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        t.sentCredential = nil
        if let netrc = configuration.netrcFile {
            try e.set(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            try e.set(CURLOPT_NETRC_FILE, netrc)
        }
        let url = t.request.url
        var credential: TransferCredential? = nil
        var method = configuration.httpAuthentication
        if let c = t.credential, let space = t.credentialSpace, !space.isProxy, Self.sameOrigin(space, url) {
            credential = c
            method = space.authenticationMethod == .httpDigest ? .digest : .basic
        } else if let c = storedCredential(for: url) {
            credential = c
        } else if let original = storedCredential(for: t.task.originalRequest.url),
                  RedirectPolicy.credentialsAllowed(origin: t.task.originalRequest.url, hop: url,
                                                    trusted: configuration.redirectsKeepCredentials),
                  !Self.sameOrigin(Self.space(for: t.task.originalRequest.url, realm: nil, method: .httpBasic), url) {
            credential = original
        }
        if let credential {
            try e.set(CURLOPT_USERNAME, credential.user)
            try e.set(CURLOPT_PASSWORD, credential.password)
            let mask: UInt = switch method {
            case .basic: TK_CURLAUTH_BASIC
            case .digest: TK_CURLAUTH_DIGEST
            case .any: TK_CURLAUTH_ANY
            }
            try e.set(CURLOPT_HTTPAUTH, Int(mask))
            t.sentCredential = credential
        }
        if let c = t.credential, let space = t.credentialSpace, space.isProxy {
            try e.set(CURLOPT_PROXYUSERNAME, c.user)
            try e.set(CURLOPT_PROXYPASSWORD, c.password)
            try e.set(CURLOPT_PROXYAUTH, Int(space.authenticationMethod == .httpDigest ? TK_CURLAUTH_DIGEST : TK_CURLAUTH_BASIC))
            t.sentCredential = c
        }
    }

    private func storedCredential(for url: URL) -> TransferCredential? {
        guard let host = url.host else { return nil }
        return credentials.credential(host: host, port: Self.port(of: url), scheme: url.scheme ?? "http",
                                      realm: nil, isProxy: false)
    }

    /// Called from the response head: true when it is a challenge held for the delegate.
    func holdChallenge(_ t: Transfer, _ response: TransferResponse) -> Bool {
        t.pendingChallenge = nil
        let isProxy = response.statusCode == 407
        guard response.statusCode == 401 || isProxy else {
            if let (c, space) = t.credentialToStore {  // it worked: keep it as the delegate asked
                credentials.set(c, for: space)
                t.credentialToStore = nil
            }
            return false
        }
        guard let space = lastChallengeSpace(t, response) else { return false }
        t.credentialToStore = nil
        t.pendingChallenge = space
        t.isRedirectHop = true  // the body is kept aside, not delivered (as a 3xx's)
        return true
    }

    /// The challenged hop ended: ask the delegate, or decide by default.
    func askChallenge(_ t: Transfer, _ space: ProtectionSpace) {
        t.pendingChallenge = nil
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
        t.awaitingChallenge = true
        let task = t.task
        session.delegateQueue.async { [self] in
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
            guard t.awaitingChallenge else { return }
            t.awaitingChallenge = false
        }
        guard let response = t.response, let challenged = lastChallengeSpace(t, response) else { return }
        var answer: TransferCredential? = nil
        switch disposition {
        case .useCredential:
            answer = credential ?? defaultCredential(t, response)
        case .performDefaultHandling:
            answer = defaultCredential(t, response)
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
    private func defaultCredential(_ t: Transfer, _ response: TransferResponse) -> TransferCredential? {
        guard t.authFailures == 0 else { return nil }
        return lastChallengeSpace(t, response).flatMap { credentials.credential(for: $0) }
    }

    /// The space a 401/407 names: Digest preferred when offered (as libcurl's CURLAUTH_ANY);
    /// nil when it offers neither Basic nor Digest (then it is simply the response).
    private func lastChallengeSpace(_ t: Transfer, _ response: TransferResponse) -> ProtectionSpace? {
        let isProxy = response.statusCode == 407
        let field = (isProxy ? "Proxy-Authenticate" : "WWW-Authenticate").lowercased()
        let challenges = AuthChallenge.parse(response.headers.filter { $0.name.lowercased() == field }.map(\.value))
        guard let chosen = challenges.first(where: { $0.scheme.lowercased() == "digest" })
                ?? challenges.first(where: { $0.scheme.lowercased() == "basic" }) else { return nil }
        let method: ProtectionSpace.Method = chosen.scheme.lowercased() == "digest" ? .httpDigest : .httpBasic
        if isProxy, let proxy = configuration.proxy.flatMap(URL.init(string:)), let host = proxy.host {
            return ProtectionSpace(host: host, port: Self.port(of: proxy), protocol: proxy.scheme ?? "http",
                                   realm: chosen.realm, authenticationMethod: method, isProxy: true)
        }
        return Self.space(for: t.request.url, realm: chosen.realm, method: method)
    }

    static func space(for url: URL, realm: String?, method: ProtectionSpace.Method) -> ProtectionSpace {
        ProtectionSpace(host: url.host ?? "", port: port(of: url), protocol: url.scheme?.lowercased() ?? "http",
                        realm: realm, authenticationMethod: method)
    }

    static func port(of url: URL) -> Int { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }

    static func sameOrigin(_ space: ProtectionSpace, _ url: URL) -> Bool {
        space.host.lowercased() == (url.host ?? "").lowercased() && space.port == port(of: url)
            && space.protocol == (url.scheme?.lowercased() ?? "")
    }

    /// Client certificate and pinned key of the session (CURLOPT_SSLCERT/SSLKEY/KEYPASSWD,
    /// CURLOPT_PINNEDPUBLICKEY). Both are part of libcurl's connection matching, so a
    /// connection made with them never serves a request made without.
    func configureClientTLS(_ e: EasyHandle) throws(CurlSetupError) {
        if let pin = configuration.pinnedPublicKey { try e.set(CURLOPT_PINNEDPUBLICKEY, pin) }
        if let cert = configuration.clientCertificateFile {
            try e.set(CURLOPT_SSLCERT, cert)
            if let key = configuration.clientKeyFile { try e.set(CURLOPT_SSLKEY, key) }
            if let pass = configuration.clientKeyPassword { try e.set(CURLOPT_KEYPASSWD, pass) }
        }
    }
}
