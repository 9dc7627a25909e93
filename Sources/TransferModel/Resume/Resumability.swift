/// Whether a download could be continued if cancelled now (Apple's
/// conditions for URLSession's resume data). The monitor shows it before the user cancels; `cancel(byProducingResumeData:)`
/// yields nil unless it holds.
public enum Resumability: Sendable, Equatable {
    case resumable
    case notResumable(Reason)

    public enum Reason: Sendable, Equatable {
        case notGET(String)
        case noResponseYet
        case status(Int)
        case noValidator
        case rangesNotSupported
        case contentEncoded(String)
        case partialFileMissing
        case partialFileTooShort(length: Int64, minimum: Int64)
        /// file and data: URLs are read whole, never resumed (DECISIONS 98).
        case scheme(String)
    }

    public var isResumable: Bool { self == .resumable }

    public var explanation: String {
        switch self {
        case .resumable: return "resumable"
        case .notResumable(let r):
            switch r {
            case .notGET(let m): return "only GET downloads resume (this is \(m))"
            case .noResponseYet: return "no response yet"
            case .status(let s): return "HTTP \(s) responses do not resume"
            case .noValidator: return "the server sent neither ETag nor Last-Modified"
            case .rangesNotSupported: return "the server does not advertise byte ranges"
            case .contentEncoded(let e): return "the body is \(e)-encoded, so byte offsets do not match"
            case .partialFileMissing: return "the partial file is gone"
            case .partialFileTooShort(let l, let m): return "only \(l) bytes on disk (need \(m))"
            case .scheme(let s): return "\(s): URLs are read whole, not resumed"
            }
        }
    }

    /// - Parameters:
    ///   - observedPartialContent: this task already got a 206 (ranges honoured).
    ///   - partialFileLength: bytes in the partial file, nil when it does not exist.
    ///   - minimumPartialBytes: 0 by default: resume data before the first body byte is still
    ///     useful, it just resumes at offset 0 with a validator.
    public static func evaluate(method: String, statusCode: Int?, responseHeaders: [HTTPHeader],
                                observedPartialContent: Bool, partialFileLength: Int64?,
                                minimumPartialBytes: Int64 = 0) -> Resumability {
        guard method == "GET" || method.uppercased() == "GET" else { return .notResumable(.notGET(method)) }
        guard let statusCode else { return .notResumable(.noResponseYet) }
        guard statusCode == 200 || statusCode == 206 else { return .notResumable(.status(statusCode)) }
        let h = responseHeaders
        // A validator that would break the If-Range line is none (it is never sent back).
        func usable(_ name: String) -> Bool { HeaderValidation.sendable(h.first(named: name))?.isEmpty == false }
        guard usable("ETag") || usable("Last-Modified") else { return .notResumable(.noValidator) }
        let ranges = h.first(named: "Accept-Ranges").map(acceptsByteRanges) ?? false
        guard ranges || observedPartialContent || statusCode == 206 else { return .notResumable(.rangesNotSupported) }
        if let enc = ResumeResponseDecision.transformingEncoding(h) { return .notResumable(.contentEncoded(enc)) }
        guard let length = partialFileLength else { return .notResumable(.partialFileMissing) }
        guard length >= minimumPartialBytes else {
            return .notResumable(.partialFileTooShort(length: length, minimum: minimumPartialBytes))
        }
        return .resumable
    }

    /// An `Accept-Ranges` value that lists `bytes`. Read for every response: the usual value,
    /// exactly `bytes`, is answered without making strings.
    static func acceptsByteRanges(_ value: String) -> Bool {
        value == "bytes" || value.lowercased().split(separator: ",").contains { $0.trimmedSpacesTabs == "bytes" }
    }
}
