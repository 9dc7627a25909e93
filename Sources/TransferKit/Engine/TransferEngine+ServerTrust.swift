import CCurl
import Foundation

/// The session-level server-trust challenge (DECISIONS 91). The TLS handshake cannot wait for
/// an asynchronous delegate, so after a verification failure (60) one probe hop only connects
/// to collect the chain the server sent (a verifying handshake aborts before libcurl records
/// it). The session delegate sees that chain; a trusted server is retried with a trust
/// exception bound to its leaf key (ServerTrustExceptions.swift). Exceptions last for the
/// session, per host and port.
extension TransferEngine {
    /// A hop failed verification: true when the engine took it over (the probe hop starts).
    /// Only with a session delegate to ask, no configured pins, no exception for the server
    /// yet, and once per task.
    func handleUntrustedServer(_ t: Transfer) -> Bool {
        guard t.task.session.delegate != nil, trustExceptions.mayProbe(t.request.url),
              t.exchange.probeTrust(reason: t.easy.errorText) else { return false }
        followRedirect(t, t.request, isRedirect: false)  // only a handshake, collecting the chain
        return true
    }

    /// The probe hop ended: its record is dropped (it sent no request; the failed hop before
    /// it stays the task's last), and its chain goes to the delegate, or the task fails as the
    /// first hop did.
    func trustProbeFinished(_ t: Transfer, code: CURLcode) {
        let reason = t.exchange.probeReason, url = t.request.url
        t.task.core.withLock { c in _ = c.metrics.transactionMetrics.popLast() }
        let session = t.task.session
        let certificates = ServerTrustExceptions.certificates(t.easy)
        guard code == CURLE_OK, !certificates.isEmpty, let delegate = session.delegate else {
            finish(t, error: ServerTrustExceptions.untrusted(url, reason: reason))
            return
        }
        let trust = ServerTrust(host: url.host ?? "", port: SessionCredentials.port(of: url), certificates: certificates, reason: reason)
        t.exchange.awaitTrustAnswer(trust)
        let task = t.task
        session.deliver(awaited: true) { [self] in
            session.emit(.delegateCallback("didReceiveChallenge"), task: task, detail: "ServerTrust \(trust.host):\(trust.port)")
            delegate.session(session, didReceive: ServerTrustExceptions.challenge(trust)) { [self] disposition, _ in
                _ = send(.trust(task, disposition))
            }
        }
    }

    func applyTrustAnswer(_ t: Transfer, _ disposition: AuthChallengeDisposition) {
        guard let trust = t.exchange.trustAnswered() else { return }
        let url = t.request.url
        if disposition == .useCredential, trustExceptions.trust(trust, for: url) {
            followRedirect(t, t.request, isRedirect: false)
        } else if disposition == .cancelAuthenticationChallenge {
            finish(t, error: TransferError(.cancelled, "the server-trust challenge was cancelled", curlMessage: trust.reason,
                                           failingURL: Redaction.redactURL(url.absoluteString)))
        } else {
            finish(t, error: ServerTrustExceptions.untrusted(url, reason: trust.reason))
        }
    }
}
