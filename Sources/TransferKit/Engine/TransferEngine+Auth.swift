import Foundation

/// The engine's part in HTTP authentication (SessionCredentials.swift): it sets a hop's
/// credentials while making its handle, and performs what an answer to a challenge means.
extension TransferEngine {
    func configureAuthentication(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) { try auth.configure(e, t) }

    /// The challenged hop ended: ask the delegate, or decide by default.
    func askChallenge(_ t: Transfer, _ space: ProtectionSpace) {
        let decided = auth.challenge(t, space) { [self] task, disposition, credential in
            _ = send(.challenge(task, disposition, credential))
        }
        if let decided { applyChallengeAnswer(t, decided, nil, asked: false) }
    }

    func applyChallengeAnswer(_ t: Transfer, _ disposition: AuthChallengeDisposition, _ credential: TransferCredential?,
                              asked: Bool = true) {
        switch auth.answer(t, disposition, credential, asked: asked) {
        case .ignored: break
        case .cancelled:
            finish(t, error: TransferError(.cancelled, "the authentication challenge was cancelled",
                                           failingURL: Redaction.redactURL(t.request.url.absoluteString)))
        case .responseIsFinal:
            deliverRedirectAsFinal(t)  // the 401/407 and its body are the task's response
            finish(t, error: nil)
        case .retry:
            followRedirect(t, t.request, isRedirect: false)
        }
    }
}
