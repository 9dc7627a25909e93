import CCurl
import TransferModel

/// The configuration's body size limits (`maximumContentLength`, `maximumDecodedRatio`),
/// checked on the transfer thread: against a response's Content-Length when its head
/// arrives, and against the bytes stored as they arrive. A failure is recorded as the
/// transfer's `sinkFailure`, so the body callback refuses the next bytes and the task fails
/// with it; the error is not resumable, so a download's partial file is removed.
extension Transfer {
    /// The final response's head: a Content-Length over the maximum fails before any byte.
    func checkAnnouncedSize(_ response: TransferResponse) {
        guard sinkFailure == nil, !exchange.bodyIsAlreadyComplete, bodySizeLimit.maximum != nil, !response.isContentDecoded else { return }
        fail(bodySizeLimit.check(announced: response.expectedContentLength, alreadyStored: resumeOffset))
    }

    /// Before `count` more body bytes are kept: false (with `sinkFailure` set) when they
    /// would pass the maximum, or when a decoded body has become a bomb.
    func admitsBody(_ count: Int) -> Bool {
        let limit = bodySizeLimit
        let decoding = response?.isContentDecoded == true
        guard limit.maximum != nil || (decoding && limit.ratio != nil) else { return true }
        let hopDecoded = hopReceived + Int64(count)
        // libcurl counts body bytes before its decoders run: CURLINFO_SIZE_DOWNLOAD_T is
        // what came over the wire (after de-chunking), read only once the guard applies.
        let wire = decoding && hopDecoded > BodySizeLimit.allowance ? easy.offset(CURLINFO_SIZE_DOWNLOAD_T) : 0
        let decoded = limit.check(stored: hopDecoded, wire: wire, decoding: decoding)
        if case .bomb = decoded { return fail(decoded) }
        return fail(limit.check(stored: resumeOffset + totalReceived + Int64(count), wire: 0, decoding: false))
    }

    /// Records a verdict's failure; true when it was `.within`.
    @discardableResult
    private func fail(_ verdict: BodySizeLimit.Verdict) -> Bool {
        guard let message = verdict.message else { return true }
        sinkFailure = TransferError(.dataLengthExceedsMaximum, message,
                                    failingURL: Redaction.redactURL(request.url.absoluteString))
        return false
    }
}
