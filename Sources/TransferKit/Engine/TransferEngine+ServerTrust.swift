import CCurl
import Foundation

/// The session-level server-trust challenge (SPEC S12, research A7 "two passes"): the TLS
/// handshake cannot wait for an asynchronous delegate, so after a verification failure (60) a
/// probe hop only connects (CURLOPT_CONNECT_ONLY: a handshake, no request sent, verification
/// off, CURLOPT_CERTINFO on, the connection not kept) to collect the chain the server sent (a
/// verifying handshake aborts before libcurl records it), the delegate sees that chain, and a trusted server is retried with a
/// trust exception bound to its leaf key: verification off, CURLOPT_PINNEDPUBLICKEY on that
/// key. Pinned keys and VERIFYPEER are part of libcurl's connection matching, so an exception
/// connection never serves a normally verified task (and the reverse). Exceptions last for
/// the session, per host and port.
extension TransferEngine {
    static func trustKey(_ url: URL) -> String { "\(url.host?.lowercased() ?? ""):\(port(of: url))" }

    func configureTrustException(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        if t.trustProbe {
            try e.set(CURLOPT_CERTINFO, true)
            try e.set(CURLOPT_CONNECT_ONLY, 1)
            try e.set(CURLOPT_FORBID_REUSE, true)
            try e.set(CURLOPT_SSL_VERIFYPEER, false)
            try e.set(CURLOPT_SSL_VERIFYHOST, 0)
            return
        }
        // A configured pin is the caller's stricter rule: no exception replaces it.
        guard configuration.pinnedPublicKey == nil, let pin = trustExceptions[Self.trustKey(t.request.url)] else { return }
        try e.set(CURLOPT_SSL_VERIFYPEER, false)
        try e.set(CURLOPT_SSL_VERIFYHOST, 0)
        try e.set(CURLOPT_PINNEDPUBLICKEY, pin)
    }

    /// A hop failed verification: true when the engine took it over (probe or delegate).
    func handleUntrustedServer(_ t: Transfer) -> Bool {
        let session = t.task.session
        guard session.delegate != nil, configuration.pinnedPublicKey == nil,
              trustExceptions[Self.trustKey(t.request.url)] == nil else { return false }
        guard !t.trustProbed else { return false }
        t.trustProbed = true
        t.trustProbe = true
        t.probeReason = t.easy.errorText
        followRedirect(t, t.request, isRedirect: false)  // only a handshake, collecting the chain
        return true
    }

    /// The probe hop ended: show its chain to the delegate, or fail as the first hop did.
    func trustProbeFinished(_ t: Transfer, code: CURLcode) {
        t.trustProbe = false
        let session = t.task.session
        let failure = TransferError(.serverCertificateUntrusted, TransferError.Code.serverCertificateUntrusted.summary,
                                    curlCode: Int32(CURLE_PEER_FAILED_VERIFICATION.rawValue), curlMessage: t.probeReason,
                                    failingURL: Redaction.redactURL(t.request.url.absoluteString))
        var certificates: [String] = []
        while let pem = tk_certinfo_pem(t.easy.raw, Int32(certificates.count)) { certificates.append(String(cString: pem)) }
        guard code == CURLE_OK, !certificates.isEmpty, let delegate = session.delegate else {
            finish(t, error: failure)
            return
        }
        let url = t.request.url
        let trust = ServerTrust(host: url.host ?? "", port: Self.port(of: url), certificates: certificates,
                                reason: t.probeReason)
        var challenge = AuthenticationChallenge(
            protectionSpace: ProtectionSpace(host: trust.host, port: trust.port, protocol: "https", realm: nil,
                                             authenticationMethod: .serverTrust),
            previousFailureCount: 0, proposedCredential: nil, failureResponse: nil)
        challenge.serverTrust = trust
        let shown = challenge
        t.awaitingTrust = true
        let task = t.task
        session.delegateQueue.async { [self] in
            session.emit(.delegateCallback("didReceiveChallenge"), task: task, detail: "ServerTrust \(trust.host):\(trust.port)")
            delegate.session(session, didReceive: shown) { [self] disposition, _ in
                _ = send(.trust(task, disposition))
            }
        }
        t.pendingTrust = trust
    }

    func applyTrustAnswer(_ t: Transfer, _ disposition: AuthChallengeDisposition) {
        guard t.awaitingTrust, let trust = t.pendingTrust else { return }
        t.awaitingTrust = false
        t.pendingTrust = nil
        var digest = [UInt8](repeating: 0, count: 32)
        if disposition == .useCredential, tk_pem_pubkey_sha256(trust.certificates[0], &digest) == 1 {
            trustExceptions[Self.trustKey(t.request.url)] = "sha256//" + Data(digest).base64EncodedString()
            followRedirect(t, t.request, isRedirect: false)
            return
        }
        let code: TransferError.Code = disposition == .cancelAuthenticationChallenge ? .cancelled : .serverCertificateUntrusted
        finish(t, error: TransferError(code, code == .cancelled ? "the server-trust challenge was cancelled" : code.summary,
                                       curlCode: Int32(CURLE_PEER_FAILED_VERIFICATION.rawValue), curlMessage: trust.reason,
                                       failingURL: Redaction.redactURL(t.request.url.absoluteString)))
    }
}
