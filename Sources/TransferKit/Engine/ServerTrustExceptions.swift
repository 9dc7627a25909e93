import CCurl
import Foundation

/// The servers the session delegate trusted after a failed verification (DECISIONS 91): per
/// host and port, the `sha256//` pin of the leaf key it saw. A hop to such a server runs with
/// verification off and CURLOPT_PINNEDPUBLICKEY on that key; pinned keys and VERIFYPEER are
/// part of libcurl's connection matching, so an exception connection never serves a verified
/// task (and the reverse). The trust probe's hop (`Exchange.Stage.probingTrust`) only connects
/// (CURLOPT_CONNECT_ONLY: a handshake, no request sent, verification off, CURLOPT_CERTINFO on,
/// the connection not kept) to collect the chain the server sent. Transfer thread only.
final class ServerTrustExceptions {
    /// "host:port" → the leaf's `sha256//` pin.
    private var pins: [String: String] = [:]
    /// Configured pins are the caller's stricter rule: no exception replaces them, and no
    /// probe is made.
    private let configuredPins: Bool

    init(configuration: TransferConfiguration) {
        configuredPins = configuration.pinnedPublicKeys != nil
    }

    static func key(_ url: URL) -> String { "\(url.host?.lowercased() ?? ""):\(SessionCredentials.port(of: url))" }

    /// An https hop's options: the probe's, or the exception's for a trusted server.
    func configure(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        t.usesTrustException = false
        if t.exchange.isProbingTrust {
            try e.set(CURLOPT_CERTINFO, true)
            try e.set(CURLOPT_CONNECT_ONLY, 1)
            try e.set(CURLOPT_FORBID_REUSE, true)
            try e.set(CURLOPT_SSL_VERIFYPEER, false)
            try e.set(CURLOPT_SSL_VERIFYHOST, 0)
            return
        }
        // No exception yet (the usual case): no key made for every https hop.
        guard !configuredPins, !pins.isEmpty, let pin = pins[Self.key(t.request.url)] else { return }
        try e.set(CURLOPT_SSL_VERIFYPEER, false)
        try e.set(CURLOPT_SSL_VERIFYHOST, 0)
        try e.set(CURLOPT_PINNEDPUBLICKEY, pin)
        t.usesTrustException = true
    }

    /// Whether a hop to `url` that failed verification may be probed (the task's own "once"
    /// is `Exchange.probeTrust`).
    func mayProbe(_ url: URL) -> Bool { !configuredPins && pins[Self.key(url)] == nil }

    /// The chain the probe's handshake collected, as PEM, leaf first.
    static func certificates(_ easy: EasyHandle) -> [String] {
        var certificates: [String] = []
        while let pem = tk_certinfo_pem(easy.raw, Int32(certificates.count)) { certificates.append(String(cString: pem)) }
        return certificates
    }

    /// The challenge the session delegate gets for a probed server.
    static func challenge(_ trust: ServerTrust) -> AuthenticationChallenge {
        AuthenticationChallenge(
            protectionSpace: ProtectionSpace(host: trust.host, port: trust.port, protocol: "https", realm: nil,
                                             authenticationMethod: .serverTrust),
            previousFailureCount: 0, proposedCredential: nil, failureResponse: nil, serverTrust: trust)
    }

    /// The delegate trusted the server: its leaf key becomes the session's exception for
    /// `url`'s host and port. False when the key cannot be read.
    func trust(_ trust: ServerTrust, for url: URL) -> Bool {
        var digest = [UInt8](repeating: 0, count: 32)
        guard let leaf = trust.certificates.first, tk_pem_pubkey_sha256(leaf, &digest) == 1 else { return false }
        pins[Self.key(url)] = "sha256//" + Data(digest).base64EncodedString()
        return true
    }

    /// The error the first, failed hop would have ended the task with.
    static func untrusted(_ url: URL, reason: String) -> TransferError {
        TransferError(.serverCertificateUntrusted, TransferError.Code.serverCertificateUntrusted.summary,
                      curlCode: Int32(CURLE_PEER_FAILED_VERIFICATION.rawValue), curlMessage: reason,
                      failingURL: Redaction.redactURL(url.absoluteString))
    }
}
