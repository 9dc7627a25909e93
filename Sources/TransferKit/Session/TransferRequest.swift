import Foundation

/// A request, in URLSession's terms, without Foundation's `URLRequest` (which on Linux lives in
/// FoundationNetworking and would clash in files that import both).
public struct TransferRequest: Sendable, Equatable {
    public var url: URL
    public var httpMethod: String
    public var headers: [HTTPHeader]
    /// A body in memory for data and upload tasks; file bodies are given to the upload call.
    public var httpBody: Data?
    /// Overrides the session's `timeoutIntervalForRequest` when set.
    public var timeoutInterval: TimeInterval?
    /// false: this request neither sends the session's cookies nor stores the ones it gets
    /// (URLRequest's `httpShouldHandleCookies`). Without effect when the session's
    /// `httpShouldSetCookies` is false.
    public var httpShouldHandleCookies = true
    /// The page this request is for (URLRequest's `mainDocumentURL`): with the
    /// `onlyFromMainDocumentDomain` accept policy, only cookies for its domain are kept. nil: each
    /// response is its own main document (Apple's behaviour without one).
    public var mainDocumentURL: URL? = nil
    /// URLRequest's `cachePolicy`; nil: the session's `requestCachePolicy`. Without effect
    /// when the session has no `urlCache`.
    public var cachePolicy: RequestCachePolicy? = nil

    public init(url: URL, httpMethod: String = "GET", headers: [HTTPHeader] = [],
                httpBody: Data? = nil, timeoutInterval: TimeInterval? = nil) {
        self.url = url
        self.httpMethod = httpMethod
        self.headers = headers
        self.httpBody = httpBody
        self.timeoutInterval = timeoutInterval
    }

    /// Replaces every header of that name (case-insensitive) with one value; nil removes it.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        if let value { headers.append(HTTPHeader(name, value)) }
    }

    public func value(forHTTPHeaderField name: String) -> String? { headers.first(named: name) }
}

/// The response head of one hop, as URLSession's `HTTPURLResponse`.
public struct TransferResponse: Sendable, Equatable {
    public var url: URL
    public var statusCode: Int
    public var headers: [HTTPHeader]
    /// `"http/1.1"` or `"h2"`.
    public var networkProtocolName: String?

    public init(url: URL, statusCode: Int, headers: [HTTPHeader], networkProtocolName: String? = nil) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.networkProtocolName = networkProtocolName
    }

    public func value(forHTTPHeaderField name: String) -> String? { headers.first(named: name) }

    /// The response came with an HTTP status line. file, ftp and data: responses have none:
    /// their `statusCode` is 0 and their headers are what libcurl reported (Content-Type,
    /// Content-Length, Last-Modified), as URLSession gives them a plain `URLResponse`.
    public var hasStatusCode: Bool { statusCode > 0 }

    /// The body is the resource: a 2xx, or a non-HTTP response (it arrived, so it is the file).
    public var isSuccessful: Bool { !hasStatusCode || (200..<300).contains(statusCode) }

    /// True when the body was handed over decoded (`Content-Encoding` gzip, br, …, and the
    /// configuration's `httpAcceptsContentEncoding`).
    public var isContentDecoded = false

    /// Content-Length, or -1 when the server did not say or the body is decoded (the length
    /// on the wire says nothing about the decoded bytes; URLSession answers -1 too).
    public var expectedContentLength: Int64 {
        if isContentDecoded { return -1 }
        return value(forHTTPHeaderField: "Content-Length").flatMap { Int64(String(decoding: HeaderLine.trimmed($0.utf8), as: UTF8.self)) } ?? -1
    }

    /// The `charset` parameter of Content-Type, lower-cased and unquoted (`textEncodingName`).
    public var textEncodingName: String? {
        guard let type = value(forHTTPHeaderField: "Content-Type") else { return nil }
        for parameter in type.split(separator: ";").dropFirst() {
            let kv = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2, kv[0].lowercased() == "charset" else { continue }
            let value = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value.lowercased()
        }
        return nil
    }

    /// The safe name from `Content-Disposition` (RFC 6266, `filename*` preferred), nil without one.
    public var contentDispositionFilename: String? {
        value(forHTTPHeaderField: "Content-Disposition").flatMap(ContentDisposition.safeFilename(fromHeader:))
    }

    /// As URLSession: the Content-Disposition name, else the URL's last path component, made
    /// safe as one file name (no path, control or bidi characters; `index.html` for none).
    public var suggestedFilename: String {
        contentDispositionFilename ?? PartialFileName.baseName(for: url)
    }

    public var mimeType: String? {
        value(forHTTPHeaderField: "Content-Type")?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}

/// What a data task does after *didReceiveResponse*.
public enum ResponseDisposition: Sendable, Equatable {
    case allow
    case cancel
    /// Continue as a download task: the body goes to a file.
    case becomeDownload
}
