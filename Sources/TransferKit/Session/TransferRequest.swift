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

    /// Content-Length, or -1 when the server did not say.
    public var expectedContentLength: Int64 {
        value(forHTTPHeaderField: "Content-Length").flatMap { Int64(String(decoding: HeaderLine.trimmed($0.utf8), as: UTF8.self)) } ?? -1
    }

    public var mimeType: String? {
        value(forHTTPHeaderField: "Content-Type")?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}

/// What a data task does after *didReceiveResponse* (SPEC S6).
public enum ResponseDisposition: Sendable, Equatable {
    case allow
    case cancel
    /// Continue as a download task: the body goes to a file.
    case becomeDownload
}
