/// What to do with the final response to a resume request.
/// The rule that matters: two versions of a file are never spliced.
public enum ResumeResponseDecision: Sendable, Equatable {
    /// 206 that continues exactly at `offset`: append; report didResumeAtOffset(offset, total).
    case continueAt(offset: Int64, expectedTotal: Int64)
    /// Start over at byte 0 and report didResumeAtOffset(0, …). `reason.bodyIsFullRepresentation`
    /// says whether this response's body can be written from 0 now (200) or a new plain GET is
    /// needed (bad 206, 416).
    case restartFromZero(RestartReason)
    /// 416 proving the partial file already holds the whole, unchanged resource.
    case alreadyComplete(total: Int64)
    /// Not a resume at all (404, 5xx, …): the task fails or completes with this response.
    case fail(status: Int, reason: String)

    public enum RestartReason: Sendable, Equatable {
        /// 200: the server ignored Range or If-Range failed; the body is the whole resource.
        case rangeIgnored
        case contentRangeMissing
        case contentRangeMalformed(String)
        case wrongStart(expected: Int64, actual: Int64)
        case totalChanged(expected: Int64, actual: Int64)
        case validatorChanged(String)
        case contentEncoded(String)
        /// 416 that does not prove completeness.
        case notSatisfiable(String)

        public var bodyIsFullRepresentation: Bool { self == .rangeIgnored }

        /// What the server's answer to the range request got wrong, for the hop's record.
        public var message: String {
            let restart = "; started again from byte 0"
            switch self {
            case .rangeIgnored:
                return "the server ignored the range and sent the whole resource" + restart
            case .contentRangeMissing:
                return "the server's 206 has no Content-Range" + restart
            case .contentRangeMalformed(let raw):
                return "the server's 206 has a malformed Content-Range '\(SafeQuote.quote(raw, limit: 60))'" + restart
            case .wrongStart(let expected, let actual):
                return "the server's 206 starts at byte \(actual), not at byte \(expected) where the partial file ends (wrong Content-Range)" + restart
            case .totalChanged(let expected, let actual):
                return "the server's 206 gives a total of \(actual) bytes, not the \(expected) the partial file was part of (wrong Content-Range)" + restart
            case .validatorChanged(let why):
                return "the resource changed since the partial file (\(why))" + restart
            case .contentEncoded(let coding):
                return "the server's 206 is content-encoded (\(coding)) and cannot extend the partial file" + restart
            case .notSatisfiable(let why):
                return "the server's \(why)" + restart
            }
        }
    }

    public static func decide(_ r: ResumeData, status: Int, headers: [HTTPHeader]) -> ResumeResponseDecision {
        switch status {
        case 200: return .restartFromZero(.rangeIgnored)
        case 206: return partialContent(r, headers)
        case 416: return notSatisfiable(r, headers)
        default: return .fail(status: status, reason: "HTTP \(status) is not an answer to a range request")
        }
    }

    static func partialContent(_ r: ResumeData, _ h: [HTTPHeader]) -> ResumeResponseDecision {
        guard let raw = h.first(named: "Content-Range") else { return .restartFromZero(.contentRangeMissing) }
        guard case .range(let first, _, let total)? = ContentRange(raw) else {
            return .restartFromZero(.contentRangeMalformed(raw))
        }
        guard first == r.bytesReceived else { return .restartFromZero(.wrongStart(expected: r.bytesReceived, actual: first)) }
        if let total, r.expectedTotal >= 0, total != r.expectedTotal {
            return .restartFromZero(.totalChanged(expected: r.expectedTotal, actual: total))
        }
        if let why = validatorMismatch(r, h, requireETag: true) { return .restartFromZero(.validatorChanged(why)) }
        if let enc = transformingEncoding(h) { return .restartFromZero(.contentEncoded(enc)) }
        return .continueAt(offset: first, expectedTotal: total ?? r.expectedTotal)
    }

    static func notSatisfiable(_ r: ResumeData, _ h: [HTTPHeader]) -> ResumeResponseDecision {
        guard let raw = h.first(named: "Content-Range"), case .unsatisfied(let total)? = ContentRange(raw) else {
            return .restartFromZero(.notSatisfiable("416 without Content-Range: bytes */total"))
        }
        guard total == r.bytesReceived else {
            return .restartFromZero(.notSatisfiable("416 total \(total) is not the offset \(r.bytesReceived)"))
        }
        if let why = validatorMismatch(r, h, requireETag: false) { return .restartFromZero(.validatorChanged(why)) }
        let hasValidator = h.first(named: "ETag") != nil || h.first(named: "Last-Modified") != nil
        guard r.expectedTotal == total || (r.expectedTotal < 0 && hasValidator) else {
            return .restartFromZero(.notSatisfiable("416 does not prove the file is complete and unchanged"))
        }
        return .alreadyComplete(total: total)
    }

    /// Why the response's validators disagree with the stored ones, or nil. A 206 must repeat
    /// a stored ETag (RFC 9110 §15.3.7 requires servers to send it); a missing Last-Modified is
    /// tolerated because If-Range already guarded it.
    static func validatorMismatch(_ r: ResumeData, _ h: [HTTPHeader], requireETag: Bool) -> String? {
        if let stored = r.entityTag {
            let now = h.first(named: "ETag")?.trimmedSpacesTabs
            if now == nil && requireETag { return "the response has no ETag; stored \(stored)" }
            if let now, now != stored { return "ETag \(stored) became \(now)" }
        }
        if let stored = r.lastModified, let now = h.first(named: "Last-Modified")?.trimmedSpacesTabs, now != stored {
            return "Last-Modified \(stored) became \(now)"
        }
        return nil
    }

    static func transformingEncoding(_ h: [HTTPHeader]) -> String? { ContentCodingPolicy.transformingEncoding(h) }
}
