import CCurl
import Foundation
import TransferModel

/// A resumed download whose connection the server closed during the suspend continues from
/// resume data in the same task (DECISIONS 173): the decision is `HeldConnection`'s, this is
/// the I/O.
extension TransferEngine {
    /// A suspend's actions: a connection they pause may be closed by the server meanwhile.
    func noteSuspend(_ t: Transfer, _ actions: [FlowControl.Action]) {
        t.heldConnection.suspended(pausedConnection: actions.contains(.pauseHandle))
    }

    /// The hop failed with `error`: true when the task continues on a new hop instead.
    func continueAfterDeadConnection(_ t: Transfer, _ error: TransferError) -> Bool {
        let failure = HeldConnection.Failure(
            code: error.code, isDownload: t.task.kind == .download, isHTTP: t.scheme.isHTTP,
            resumable: currentResumability(t).isResumable && rangeIsOurs(t))
        guard t.heldConnection.hopFailed(failure) == .continueFromResumeData, let r = resumePoint(t) else { return false }
        continueDownload(t, from: r)
        return true
    }

    /// The hop failed on a kept-alive connection before any of its response came: true when the
    /// request is sent again instead (`StaleConnectionRetry`).
    func resendAfterStaleConnection(_ t: Transfer, code: CURLcode) -> Bool {
        var streamed = false
        if case .streamed? = t.task.upload { streamed = true }
        let failure = StaleConnectionRetry.Failure(
            curlCode: Int(code.rawValue), isHTTP: t.scheme.isHTTP,
            reusedConnection: t.easy.long(CURLINFO_NUM_CONNECTS) == 0,
            responseStarted: t.firstHeaderAt != nil || t.response != nil,
            method: t.request.httpMethod, replayableBody: !(streamed && t.hasBodyThisHop),
            failedByConnection: t.sinkFailure == nil)
        guard t.staleConnection.hopFailed(failure) == .sendAgain else { return false }
        sendAgain(t)
        return true
    }

    /// Sends the current request again on a new hop (after a connectivity wait, or a connection
    /// closed under it). The request was not answered: a resumed download's range request keeps
    /// standing for the resume data it was made from (`resumePoint`), and the body bytes the
    /// failed hop sent are not counted twice (as for libcurl's own rewind, `seekBody`).
    func sendAgain(_ t: Transfer) {
        let sendsResumeRequest = t.resumeFrom != nil && t.hop == t.resumeFromHop
        t.hopSent -= t.uploadOffset
        followRedirect(t, t.request, isRedirect: false)
        if sendsResumeRequest { t.resumeFromHop = t.hop }
    }

    /// A `Range` the user set asks for part of a resource; only the engine's own (a resumed
    /// download's) may be moved on.
    private func rangeIsOurs(_ t: Transfer) -> Bool {
        t.request.value(forHTTPHeaderField: "Range") == nil || t.resumeFrom != nil
    }

    /// A new hop asks for the rest; its answer goes through the same resume decision as a
    /// download made from resume data (a 206 continues, a changed resource starts from zero).
    private func continueDownload(_ t: Transfer, from r: ResumeData) {
        // Everything received so far is counted once: published to the delegate and the
        // observers before the counts start again from the file's offset.
        publishProgress(t, now: Monotonic.now(), final: true)
        let movedSoFar = t.totalReceived
        var next = t.request
        next.headers.removeAll { ["range", "if-range"].contains($0.name.lowercased()) }
        let plan = ResumeRequestPlan(r)
        next.headers.append(HTTPHeader("Range", "bytes=\(plan.offset)-"))
        if let validator = plan.ifRange { next.headers.append(HTTPHeader("If-Range", validator)) }
        t.resumeFrom = r
        t.resumeOffset = r.bytesReceived
        followRedirect(t, next, isRedirect: false)
        t.resumeFromHop = t.hop
        // The new hop's body is counted from the file's offset (`resumeOffset`), not on top of
        // the bytes already received.
        t.totalReceivedBeforeHop = 0
        t.progress.continued(afterMoving: movedSoFar)
    }
}
