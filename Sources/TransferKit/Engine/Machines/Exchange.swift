import TransferModel

/// One task's request/response life cycle across its hops: the head of each hop, the response
/// the task will deliver, the delegate's decisions between hops (a redirect, an authentication
/// challenge, server trust, a new body stream) and how a hop's end continues the task. Pure:
/// the engine reports what libcurl and the delegates did and performs what this returns
/// (docs/ARCHITECTURE.md, "The event path").
///
/// A hop goes `sending` → (a head) `keptAside` | `awaitingDisposition` | `receiving` → its end,
/// which either ends the task or leads, through one of the `awaiting…` stages, to the next hop.
struct Exchange {
    enum Stage {
        /// The hop is in flight and no final head has come (1xx heads come and go; a head
        /// that libcurl answers itself, as its Digest reply to a 401, starts it again).
        case sending
        /// A head that is not the task's answer (yet): a redirect to follow or a challenge to
        /// answer. Its body is kept aside in case it becomes the answer.
        case keptAside(Aside)
        /// The task's response, held for the data delegate's disposition; the hop may end
        /// meanwhile (`deferred`), and then the task ends once the answer came.
        case awaitingDisposition(deferred: Ending?)
        /// The task's response; its body goes to the task's destination, or is refused.
        case receiving(Body)
        /// Between hops, waiting for the delegate (no handle in the multi, no timer runs).
        case awaitingRedirectDecision
        case awaitingChallengeAnswer
        case awaitingTrustAnswer(ServerTrust)
        case awaitingBodyStream
        /// A hop that only connects, to collect the certificate chain the server sends.
        case probingTrust(reason: String)
    }

    enum Aside {
        case redirect(TransferRequest)
        case challenge(ProtectionSpace)
    }

    enum Body: Equatable {
        case delivered
        /// A 416 proved the partial file already whole: the body (an error page) is dropped.
        case alreadyComplete
        /// The answer to a range request cannot be used: the hop is aborted and the whole
        /// resource fetched again with a plain request, never spliced.
        case restartFromZero(reason: String?)
    }

    /// How a hop ended that could not end the task at once.
    struct Ending {
        var error: TransferError?
        var keepPartialFile: Bool
    }

    /// What the engine does when a hop's handle is done.
    enum HopEndAction: Equatable {
        /// The trust probe's handshake is done: read its chain.
        case trustProbeEnded
        /// Fetch the whole resource again (`Body.restartFromZero`).
        case restartFromZero
        /// The hop failed (libcurl's code or the body's own failure): the engine may wait for
        /// connectivity or probe trust before it fails the task.
        case failed
        case askChallenge(ProtectionSpace)
        case proposeRedirect(TransferRequest)
        case finish
    }

    private(set) var stage: Stage = .sending
    /// The task probes the server's trust at most once.
    private(set) var trustProbe: TrustProbe = .notProbed
    /// A 206 came on this task: the server honours ranges (resume data may be made).
    private(set) var ranges: RangeEvidence = .none

    enum TrustProbe: Equatable { case notProbed, probed }
    enum RangeEvidence: Equatable { case none, partialContentSeen }

    // MARK: the hop's head

    /// A status line: a new head begins (a 1xx, or a head after libcurl answered one).
    mutating func headBegan() {
        switch stage {
        case .keptAside, .awaitingDisposition, .receiving: stage = .sending
        default: break
        }
    }

    /// A final head that is not the answer yet.
    mutating func keepAside(_ aside: Aside) { stage = .keptAside(aside) }

    /// A final head that is the task's response. `partialContent`: it is a 206.
    mutating func accept(partialContent: Bool) {
        stage = .receiving(.delivered)
        if partialContent { ranges = .partialContentSeen }
    }

    /// The resume decision on a resumed download's answer (after `accept`).
    mutating func continuesRange() { ranges = .partialContentSeen }
    mutating func refuseBody(restartReason: String?) { stage = .receiving(.restartFromZero(reason: restartReason)) }
    mutating func dropBodyAsComplete() { stage = .receiving(.alreadyComplete) }

    /// The data delegate is asked what to do with the response; body bytes are held.
    mutating func askDisposition() { stage = .awaitingDisposition(deferred: nil) }

    /// The answer came: the deferred ending, if the hop ended meanwhile. Nil when no answer
    /// was awaited (a late or repeated one).
    mutating func dispositionAnswered() -> Ending?? {
        guard case .awaitingDisposition(let deferred) = stage else { return nil }
        stage = .receiving(.delivered)
        return .some(deferred)
    }

    /// The task would end now: false when it must wait for the disposition (a success whose
    /// held bytes the delegate has not allowed yet).
    mutating func mayFinish(_ ending: Ending) -> Bool {
        guard case .awaitingDisposition = stage, ending.error == nil else { return true }
        stage = .awaitingDisposition(deferred: ending)
        return false
    }

    // MARK: what the body callbacks do with bytes

    enum BodyRoute: Equatable {
        /// Stop the hop: its bytes must not touch the destination.
        case abort
        /// Take the bytes and drop them.
        case discard
        /// Keep them with the kept-aside head (a redirect's or a challenge's body).
        case keepAside
        /// Hold them until the delegate's disposition.
        case hold
        case deliver
    }

    var bodyRoute: BodyRoute {
        switch stage {
        case .receiving(.restartFromZero): .abort
        case .receiving(.alreadyComplete): .discard
        case .keptAside: .keepAside
        case .awaitingDisposition: .hold
        default: .deliver
        }
    }

    var isAwaitingDisposition: Bool {
        if case .awaitingDisposition = stage { return true }
        return false
    }

    var keepsBodyAside: Bool {
        if case .keptAside = stage { return true }
        return false
    }

    var bodyIsAlreadyComplete: Bool { bodyRoute == .discard }

    var restartsFromZero: Bool { bodyRoute == .abort }

    var restartReason: String? {
        if case .receiving(.restartFromZero(let reason)) = stage { return reason }
        return nil
    }

    /// A final head came on this hop (a fault before it is the server's head, not its body).
    var sawFinalHead: Bool {
        switch stage {
        case .keptAside, .awaitingDisposition, .receiving: true
        default: false
        }
    }

    /// Between hops, waiting for a delegate: timers stop and a resume waits for the answer.
    var awaitsDecision: Bool {
        switch stage {
        case .awaitingRedirectDecision, .awaitingChallengeAnswer, .awaitingTrustAnswer, .awaitingBodyStream: true
        default: false
        }
    }

    /// No timer runs while the delegate decides between hops, nor once the hop is over and
    /// only the disposition is awaited (a streamed body's wait keeps the resource timeout).
    var timersStopped: Bool {
        switch stage {
        case .awaitingRedirectDecision, .awaitingChallengeAnswer, .awaitingTrustAnswer: true
        case .awaitingDisposition(let deferred): deferred != nil
        default: false
        }
    }

    // MARK: the hop's end

    /// The hop's handle is done: `curlSucceeded` is libcurl's code, `bodyFailed` a refusal or
    /// failure on our side (a write, a size limit, a refused response).
    func hopEnded(curlSucceeded: Bool, bodyFailed: Bool) -> HopEndAction {
        if case .probingTrust = stage { return .trustProbeEnded }
        if restartsFromZero { return .restartFromZero }
        if curlSucceeded, case .keptAside(let aside) = stage {
            switch aside {
            case .challenge(let space): return .askChallenge(space)
            case .redirect(let next): return .proposeRedirect(next)
            }
        }
        return curlSucceeded && !bodyFailed ? .finish : .failed
    }

    /// A file or FTP resource now shorter than the partial: fetch it whole again.
    mutating func offsetBeyondResource() { stage = .receiving(.restartFromZero(reason: nil)) }

    // MARK: between hops

    mutating func awaitRedirectDecision() { stage = .awaitingRedirectDecision }

    /// The delegate's answer to the redirect; false when none was awaited.
    mutating func redirectAnswered() -> Bool {
        guard case .awaitingRedirectDecision = stage else { return false }
        stage = .sending
        return true
    }

    mutating func awaitChallengeAnswer() { stage = .awaitingChallengeAnswer }

    mutating func challengeAnswered() -> Bool {
        guard case .awaitingChallengeAnswer = stage else { return false }
        stage = .sending
        return true
    }

    /// A hop failed verification: true when the task may probe (once).
    mutating func probeTrust(reason: String) -> Bool {
        guard trustProbe == .notProbed else { return false }
        trustProbe = .probed
        stage = .probingTrust(reason: reason)
        return true
    }

    var isProbingTrust: Bool {
        if case .probingTrust = stage { return true }
        return false
    }

    var probeReason: String {
        if case .probingTrust(let reason) = stage { return reason }
        return ""
    }

    mutating func awaitTrustAnswer(_ trust: ServerTrust) { stage = .awaitingTrustAnswer(trust) }

    /// The session delegate's answer: the trust it answers, or nil when none was awaited.
    mutating func trustAnswered() -> ServerTrust? {
        guard case .awaitingTrustAnswer(let trust) = stage else { return nil }
        stage = .sending
        return trust
    }

    mutating func awaitBodyStream() { stage = .awaitingBodyStream }

    mutating func bodyStreamArrived() -> Bool {
        guard case .awaitingBodyStream = stage else { return false }
        stage = .sending
        return true
    }

    /// The next hop starts (a redirect, a restart, a retry, an answered challenge).
    mutating func nextHop() {
        if case .probingTrust = stage { return }
        stage = .sending
    }

    /// A kept-aside head becomes the task's answer (a refused redirect, an unanswered
    /// challenge): its body is delivered without waiting for a disposition.
    mutating func deliverKeptAside() { stage = .receiving(.delivered) }
}
