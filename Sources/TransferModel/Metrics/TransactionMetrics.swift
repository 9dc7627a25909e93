import Foundation

/// How a transaction's resource was fetched.
public enum ResourceFetchType: String, Sendable, Equatable, Codable {
    case unknown
    case networkLoad
    case localCache
}

/// One request/response exchange: every redirect hop is its own transaction.
///
/// Dates of phases that did not happen are `nil`, never zero: on a reused connection the
/// DNS and connect dates are `nil`; on plain HTTP the TLS dates are `nil`.
public struct TransactionMetrics: Sendable, Equatable, Codable {
    /// The request as sent on this hop.
    public var method: String
    public var url: String
    /// Request headers as sent (secrets are masked by exporters, not here).
    public var requestHeaders: [HTTPHeader]
    /// The response status, when a response head arrived.
    public var statusCode: Int?
    public var responseHeaders: [HTTPHeader]

    /// When the task asked for this hop (before any queueing).
    public var fetchStartDate: Date?
    /// Time spent waiting for a free connection (per-host limit): `fetchStartDate` → this.
    public var queueEndDate: Date?
    public var domainLookupStartDate: Date?
    public var domainLookupEndDate: Date?
    public var connectStartDate: Date?
    public var connectEndDate: Date?
    public var secureConnectionStartDate: Date?
    public var secureConnectionEndDate: Date?
    public var requestStartDate: Date?
    public var requestEndDate: Date?
    public var responseStartDate: Date?
    public var responseEndDate: Date?

    /// `"http/1.1"` or `"h2"`.
    public var networkProtocolName: String?
    public var isReusedConnection: Bool
    public var isProxyConnection: Bool
    public var localAddress: String?
    public var localPort: Int?
    public var remoteAddress: String?
    public var remotePort: Int?
    /// Negotiated TLS version and cipher suite, e.g. `TLSv1.3`, `TLS_AES_256_GCM_SHA384`.
    public var tlsProtocolVersion: String?
    public var tlsCipherSuite: String?
    /// The handshake of this hop's new connection resumed a TLS session of an earlier one
    /// (abbreviated handshake); nil without TLS, false on a reused connection. Not in Apple's
    /// metrics: it says why one TLS phase is shorter than another.
    public var isTLSSessionResumed: Bool? = nil
    /// Whether this https hop's certificate was verified: false only when the session allows
    /// insecure TLS (`-k`), so exports and the monitor can say so; nil without TLS.
    public var isTLSVerified: Bool? = nil

    public var countOfRequestHeaderBytesSent: Int64
    public var countOfRequestBodyBytesSent: Int64
    public var countOfResponseHeaderBytesReceived: Int64
    public var countOfResponseBodyBytesReceived: Int64
    public var resourceFetchType: ResourceFetchType
    /// true: this hop revalidated a cached response and the server answered 304, so the body
    /// came from the cache (Apple counts such a load as `.networkLoad`; so does
    /// `resourceFetchType` here). nil: not a revalidation. DECISIONS 103.
    public var isRevalidated: Bool? = nil

    /// The fetch type as exports and the monitor name it: `network`, `local-cache` (no request
    /// was sent), `revalidated` (a 304 from the server, the body from the cache), or empty.
    public var fetchTypeName: String {
        if isRevalidated == true { return "revalidated" }
        switch resourceFetchType {
        case .networkLoad: return "network"
        case .localCache: return "local-cache"
        case .unknown: return ""
        }
    }

    /// The phase this transaction is in now (`.done` once it ended).
    public var currentPhase: TransactionPhase
    /// Why the transaction failed, if it did (a short description, no secrets).
    public var errorDescription: String?

    public init(
        method: String, url: String, requestHeaders: [HTTPHeader] = [], statusCode: Int? = nil,
        responseHeaders: [HTTPHeader] = [], fetchStartDate: Date? = nil, queueEndDate: Date? = nil,
        domainLookupStartDate: Date? = nil, domainLookupEndDate: Date? = nil,
        connectStartDate: Date? = nil, connectEndDate: Date? = nil,
        secureConnectionStartDate: Date? = nil, secureConnectionEndDate: Date? = nil,
        requestStartDate: Date? = nil, requestEndDate: Date? = nil,
        responseStartDate: Date? = nil, responseEndDate: Date? = nil,
        networkProtocolName: String? = nil, isReusedConnection: Bool = false,
        isProxyConnection: Bool = false, localAddress: String? = nil, localPort: Int? = nil,
        remoteAddress: String? = nil, remotePort: Int? = nil, tlsProtocolVersion: String? = nil,
        tlsCipherSuite: String? = nil, countOfRequestHeaderBytesSent: Int64 = 0,
        countOfRequestBodyBytesSent: Int64 = 0, countOfResponseHeaderBytesReceived: Int64 = 0,
        countOfResponseBodyBytesReceived: Int64 = 0, resourceFetchType: ResourceFetchType = .networkLoad,
        currentPhase: TransactionPhase = .queued, errorDescription: String? = nil
    ) {
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.statusCode = statusCode
        self.responseHeaders = responseHeaders
        self.fetchStartDate = fetchStartDate
        self.queueEndDate = queueEndDate
        self.domainLookupStartDate = domainLookupStartDate
        self.domainLookupEndDate = domainLookupEndDate
        self.connectStartDate = connectStartDate
        self.connectEndDate = connectEndDate
        self.secureConnectionStartDate = secureConnectionStartDate
        self.secureConnectionEndDate = secureConnectionEndDate
        self.requestStartDate = requestStartDate
        self.requestEndDate = requestEndDate
        self.responseStartDate = responseStartDate
        self.responseEndDate = responseEndDate
        self.networkProtocolName = networkProtocolName
        self.isReusedConnection = isReusedConnection
        self.isProxyConnection = isProxyConnection
        self.localAddress = localAddress
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.tlsProtocolVersion = tlsProtocolVersion
        self.tlsCipherSuite = tlsCipherSuite
        self.countOfRequestHeaderBytesSent = countOfRequestHeaderBytesSent
        self.countOfRequestBodyBytesSent = countOfRequestBodyBytesSent
        self.countOfResponseHeaderBytesReceived = countOfResponseHeaderBytesReceived
        self.countOfResponseBodyBytesReceived = countOfResponseBodyBytesReceived
        self.resourceFetchType = resourceFetchType
        self.currentPhase = currentPhase
        self.errorDescription = errorDescription
    }
}

/// A task's metrics: its interval, how many redirects it followed, one record per hop.
public struct TaskMetrics: Sendable, Equatable, Codable {
    public var taskIntervalStart: Date
    public var taskIntervalEnd: Date?
    public var redirectCount: Int
    public var transactionMetrics: [TransactionMetrics]

    public init(taskIntervalStart: Date, taskIntervalEnd: Date? = nil, redirectCount: Int = 0,
                transactionMetrics: [TransactionMetrics] = []) {
        self.taskIntervalStart = taskIntervalStart
        self.taskIntervalEnd = taskIntervalEnd
        self.redirectCount = redirectCount
        self.transactionMetrics = transactionMetrics
    }

    /// Duration of the whole task in seconds, if it has ended.
    public var taskDuration: TimeInterval? {
        taskIntervalEnd.map { $0.timeIntervalSince(taskIntervalStart) }
    }
}
