import CCurl
import Foundation

/// The session-level server-trust challenge (DECISIONS 91). The TLS handshake
/// cannot wait for an asynchronous delegate, so after a verification failure (60) one probe
/// hop only connects (CURLOPT_CONNECT_ONLY: a handshake, no request sent, verification off,
/// CURLOPT_CERTINFO on, the connection not kept) to collect the chain the server sent (a
/// verifying handshake aborts before libcurl records it). The session delegate sees that
/// chain; a trusted server is retried with a trust exception bound to its leaf key:
/// verification off, CURLOPT_PINNEDPUBLICKEY on that key. Pinned keys and VERIFYPEER are part
/// of libcurl's connection matching, so an exception connection never serves a verified
/// task (and the reverse). Exceptions last for the session, per host and port.
extension TransferEngine {
    static func trustKey(_ url: URL) -> String { "\(url.host?.lowercased() ?? ""):\(SessionCredentials.port(of: url))" }

    func configureTrustException(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        t.usesTrustException = false
        if t.exchange.isProbingTrust {
            try e.set(CURLOPT_CERTINFO, true)
            try e.set(CURLOPT_CONNECT_ONLY, 1)
            try e.set(CURLOPT_FORBID_REUSE, true)
            try e.set(CURLOPT_SSL_VERIFYPEER, false)
            try e.set(CURLOPT_SSL_VERIFYHOST, 0)
            return
        }
        // Configured pins are the caller's stricter rule: no exception replaces them.
        guard configuration.pinnedPublicKeys == nil, let pin = trustExceptions[Self.trustKey(t.request.url)] else { return }
        try e.set(CURLOPT_SSL_VERIFYPEER, false)
        try e.set(CURLOPT_SSL_VERIFYHOST, 0)
        try e.set(CURLOPT_PINNEDPUBLICKEY, pin)
        t.usesTrustException = true
    }

    /// A hop failed verification: true when the engine took it over (the probe hop starts).
    /// Only with a session delegate to ask, no configured pins, no exception for the server
    /// yet, and once per task.
    func handleUntrustedServer(_ t: Transfer) -> Bool {
        guard t.task.session.delegate != nil, configuration.pinnedPublicKeys == nil,
              trustExceptions[Self.trustKey(t.request.url)] == nil,
              t.exchange.probeTrust(reason: t.easy.errorText) else { return false }
        followRedirect(t, t.request, isRedirect: false)  // only a handshake, collecting the chain
        return true
    }

    /// The probe hop ended: its record is dropped (it sent no request; the failed hop before
    /// it stays the task's last), and its chain goes to the delegate, or the task fails as the
    /// first hop did.
    func trustProbeFinished(_ t: Transfer, code: CURLcode) {
        let reason = t.exchange.probeReason
        t.task.core.withLock { c in _ = c.metrics.transactionMetrics.popLast() }
        let session = t.task.session
        var certificates: [String] = []
        while let pem = tk_certinfo_pem(t.easy.raw, Int32(certificates.count)) { certificates.append(String(cString: pem)) }
        guard code == CURLE_OK, !certificates.isEmpty, let delegate = session.delegate else {
            finish(t, error: untrusted(t, reason: reason))
            return
        }
        let url = t.request.url
        let trust = ServerTrust(host: url.host ?? "", port: SessionCredentials.port(of: url), certificates: certificates, reason: reason)
        let challenge = AuthenticationChallenge(
            protectionSpace: ProtectionSpace(host: trust.host, port: trust.port, protocol: "https", realm: nil,
                                             authenticationMethod: .serverTrust),
            previousFailureCount: 0, proposedCredential: nil, failureResponse: nil, serverTrust: trust)
        t.exchange.awaitTrustAnswer(trust)
        let task = t.task
        session.deliver(awaited: true) { [self] in
            session.emit(.delegateCallback("didReceiveChallenge"), task: task, detail: "ServerTrust \(trust.host):\(trust.port)")
            delegate.session(session, didReceive: challenge) { [self] disposition, _ in
                _ = send(.trust(task, disposition))
            }
        }
    }

    func applyTrustAnswer(_ t: Transfer, _ disposition: AuthChallengeDisposition) {
        guard let trust = t.exchange.trustAnswered() else { return }
        var digest = [UInt8](repeating: 0, count: 32)
        if disposition == .useCredential, tk_pem_pubkey_sha256(trust.certificates[0], &digest) == 1 {
            trustExceptions[Self.trustKey(t.request.url)] = "sha256//" + Data(digest).base64EncodedString()
            followRedirect(t, t.request, isRedirect: false)
            return
        }
        if disposition == .cancelAuthenticationChallenge {
            finish(t, error: TransferError(.cancelled, "the server-trust challenge was cancelled", curlMessage: trust.reason,
                                           failingURL: Redaction.redactURL(t.request.url.absoluteString)))
        } else {
            finish(t, error: untrusted(t, reason: trust.reason))
        }
    }

    /// The error the first, failed hop would have ended the task with.
    private func untrusted(_ t: Transfer, reason: String) -> TransferError {
        TransferError(.serverCertificateUntrusted, TransferError.Code.serverCertificateUntrusted.summary,
                      curlCode: Int32(CURLE_PEER_FAILED_VERIFICATION.rawValue), curlMessage: reason,
                      failingURL: Redaction.redactURL(t.request.url.absoluteString))
    }
}
