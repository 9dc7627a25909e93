/// The request that continues a download from resume data.
///
/// The engine sends `headers` through `CURLOPT_HTTPHEADER` and must NOT set `CURLOPT_RANGE`,
/// `CURLOPT_RESUME_FROM_LARGE` (it discards a full 200 body and hides corruption, A4 R3-R7)
/// or `CURLOPT_ACCEPT_ENCODING` (ranges address encoded bytes).
public struct ResumeRequestPlan: Sendable, Equatable {
    public var url: String
    /// The stored headers, then `Range`, then `If-Range` when a usable validator exists.
    public var headers: [HTTPHeader]
    public var offset: Int64
    /// The `If-Range` value sent: a strong ETag, else Last-Modified, else nil.
    public var ifRange: String?

    public init(_ r: ResumeData) {
        url = r.url
        offset = r.bytesReceived
        ifRange = Self.ifRangeValidator(entityTag: r.entityTag, lastModified: r.lastModified)
        headers = ResumeData.storableHeaders(r.requestHeaders) + [HTTPHeader("Range", "bytes=\(r.bytesReceived)-")]
        if let ifRange { headers.append(HTTPHeader("If-Range", ifRange)) }
    }

    /// A weak ETag (`W/"x"`) may not be used in If-Range (RFC 9110 §13.1.5), so the date is
    /// used instead. With only a weak ETag no If-Range is sent, and ResumeResponseDecision
    /// still refuses a 206 whose ETag differs.
    /// A validator with CR, LF or NUL in it is not sent at all (`HeaderValidation.sendable`).
    public static func ifRangeValidator(entityTag: String?, lastModified: String?) -> String? {
        if let tag = HeaderValidation.sendable(entityTag)?.trimmedSpacesTabs, !tag.isEmpty, !tag.hasPrefix("W/") { return tag }
        if let date = HeaderValidation.sendable(lastModified)?.trimmedSpacesTabs, !date.isEmpty { return date }
        return nil
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's OWS), no Foundation needed.
    var trimmedSpacesTabs: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
