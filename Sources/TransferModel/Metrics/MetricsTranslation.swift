import Foundation

/// The facts libcurl 7.88 and the engine know about ONE hop (one easy-handle transfer; the
/// engine follows redirects itself, so no `*_TIME_T` value is accumulated over hops).
///
/// The `*Micros` values are `CURLINFO_*_TIME_T`: µs from curl's `t_startsingle` (when the
/// transfer left the connection-limit queue), except `totalMicros`, which is measured from
/// `progress.start` (≈ `fetchStart`) and so includes queueing.
public struct CurlTimingFacts: Sendable, Equatable {
    public var namelookupMicros: Int64
    public var connectMicros: Int64
    public var appconnectMicros: Int64
    public var pretransferMicros: Int64
    public var starttransferMicros: Int64
    public var totalMicros: Int64
    /// `CURLINFO_NUM_CONNECTS`: 0 on a reused connection, and also when no connect succeeded.
    public var numConnects: Int
    /// The hop's scheme is https (or ftps).
    public var isTLS: Bool
    /// FTP: libcurl 7.88 times the data connection with the same CONNECT and APPCONNECT
    /// timers as the control connection, so their last values may be either's.
    public var hasDataConnection: Bool
    /// The task asked for this hop (`curl_multi_add_handle`).
    public var fetchStart: Date
    /// `CURLOPT_PREREQFUNCTION` ran: connected (new or reused), about to send the request.
    public var prereqAt: Date?
    /// The hop left the queue and began to connect: the first resolver-start or socket
    /// callback (neither runs on a reused connection). Within µs of `t_startsingle`.
    public var connectingAt: Date?
    /// The first header callback of this hop.
    public var firstHeaderAt: Date?
    /// The last write callback of this hop (nil when the response had no body).
    public var lastByteAt: Date?
    /// The last read callback of an upload body (nil when there was no body).
    public var lastBodyByteSentAt: Date?
    /// `CURLMSG_DONE` for this hop.
    public var doneAt: Date

    public init(namelookupMicros: Int64 = 0, connectMicros: Int64 = 0, appconnectMicros: Int64 = 0,
                pretransferMicros: Int64 = 0, starttransferMicros: Int64 = 0, totalMicros: Int64 = 0,
                numConnects: Int, isTLS: Bool, fetchStart: Date, prereqAt: Date? = nil,
                connectingAt: Date? = nil, firstHeaderAt: Date? = nil, lastByteAt: Date? = nil, lastBodyByteSentAt: Date? = nil,
                doneAt: Date, hasDataConnection: Bool = false) {
        self.hasDataConnection = hasDataConnection
        self.namelookupMicros = namelookupMicros
        self.connectMicros = connectMicros
        self.appconnectMicros = appconnectMicros
        self.pretransferMicros = pretransferMicros
        self.starttransferMicros = starttransferMicros
        self.totalMicros = totalMicros
        self.numConnects = numConnects
        self.isTLS = isTLS
        self.fetchStart = fetchStart
        self.prereqAt = prereqAt
        self.connectingAt = connectingAt
        self.firstHeaderAt = firstHeaderAt
        self.lastByteAt = lastByteAt
        self.lastBodyByteSentAt = lastBodyByteSentAt
        self.doneAt = doneAt
    }
}

/// The phase dates of one transaction; `nil` means the phase did not happen, or did not finish.
public struct TransactionPhaseDates: Sendable, Equatable {
    public var fetchStart: Date
    public var queueEnd: Date?
    public var domainLookupStart: Date?
    public var domainLookupEnd: Date?
    public var connectStart: Date?
    public var connectEnd: Date?
    public var secureConnectionStart: Date?
    public var secureConnectionEnd: Date?
    public var requestStart: Date?
    public var requestEnd: Date?
    public var responseStart: Date?
    public var responseEnd: Date?
    /// The connection was reused (no DNS, connect or TLS on this hop).
    public var isReusedConnection: Bool
    /// How `startsingle` was found; kept for debugging and docs/metrics.md.
    public var anchor: MetricsTranslation.Anchor

    public init(fetchStart: Date, queueEnd: Date? = nil, domainLookupStart: Date? = nil,
                domainLookupEnd: Date? = nil, connectStart: Date? = nil, connectEnd: Date? = nil,
                secureConnectionStart: Date? = nil, secureConnectionEnd: Date? = nil,
                requestStart: Date? = nil, requestEnd: Date? = nil, responseStart: Date? = nil,
                responseEnd: Date? = nil, isReusedConnection: Bool, anchor: MetricsTranslation.Anchor) {
        self.fetchStart = fetchStart
        self.queueEnd = queueEnd
        self.domainLookupStart = domainLookupStart
        self.domainLookupEnd = domainLookupEnd
        self.connectStart = connectStart
        self.connectEnd = connectEnd
        self.secureConnectionStart = secureConnectionStart
        self.secureConnectionEnd = secureConnectionEnd
        self.requestStart = requestStart
        self.requestEnd = requestEnd
        self.responseStart = responseStart
        self.responseEnd = responseEnd
        self.isReusedConnection = isReusedConnection
        self.anchor = anchor
    }
}

extension TransactionMetrics {
    /// Copies the translated dates (and the reuse flag) into this record.
    public mutating func apply(_ d: TransactionPhaseDates) {
        fetchStartDate = d.fetchStart
        queueEndDate = d.queueEnd
        applyConnection(d)
        requestStartDate = d.requestStart
        requestEndDate = d.requestEnd
        responseStartDate = d.responseStart
        responseEndDate = d.responseEnd
    }

    /// Copies only the connection's dates (DNS, connect, TLS) and the reuse flag: final once a
    /// hop is connected, so a live record can show them before the hop ends.
    public mutating func applyConnection(_ d: TransactionPhaseDates) {
        domainLookupStartDate = d.domainLookupStart
        domainLookupEndDate = d.domainLookupEnd
        connectStartDate = d.connectStart
        connectEndDate = d.connectEnd
        secureConnectionStartDate = d.secureConnectionStart
        secureConnectionEndDate = d.secureConnectionEnd
        isReusedConnection = d.isReusedConnection
    }
}
