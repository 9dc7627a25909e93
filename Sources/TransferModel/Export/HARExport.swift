import Foundation

/// HAR 1.2 export: one entry per transaction, secrets redacted.
/// The field mapping is documented in docs/metrics.md.
public enum HARExport {
    public static let creatorName = "transfertop"

    /// The whole archive, entries ordered by session id, task id, hop.
    public static func har(_ tasks: [TaskSnapshot], creatorVersion: String = "0.1") -> JSONValue {
        let entries = tasks.sorted { $0.id < $1.id }.flatMap { task in
            task.metrics.transactionMetrics.indices.map { entry(task, hop: $0) }
        }
        return .object([
            ("log", .object([
                ("version", .string("1.2")),
                ("creator", .object([("name", .string(creatorName)), ("version", .string(creatorVersion))])),
                ("entries", .array(entries)),
            ])),
        ])
    }

    /// The archive as pretty-printed JSON text.
    public static func harText(_ tasks: [TaskSnapshot], creatorVersion: String = "0.1") -> String {
        har(tasks, creatorVersion: creatorVersion).serialized(pretty: true) + "\n"
    }

    static func entry(_ task: TaskSnapshot, hop i: Int) -> JSONValue {
        let m = task.metrics.transactionMetrics[i]
        let t = HARTimings(m, TransactionTimings(m, transactionEnd: task.metrics.transactionEnd(at: i)))
        let isLast = i == task.metrics.transactionMetrics.count - 1
        let error = m.errorDescription ?? (isLast ? task.error.map(TransactionCSV.describe) : nil)
        var fields: [(String, JSONValue)] = [
            ("startedDateTime", .string(ExportTimestamp.iso8601(m.fetchStartDate ?? task.metrics.taskIntervalStart))),
            ("time", .number(t.time)),
            ("request", request(m)),
            ("response", response(m)),
            ("cache", .object([])),
            ("timings", t.json),
        ]
        if let ip = m.remoteAddress, !ip.isEmpty { fields.append(("serverIPAddress", .string(ip))) }
        if let port = m.localPort { fields.append(("connection", .string(String(port)))) }
        fields += [
            ("_session", .string(task.sessionName)),
            ("_sessionId", .int(Int64(task.sessionID))),
            ("_taskId", .int(Int64(task.taskIdentifier))),
            ("_taskKind", .string(task.kind.rawValue)),
            ("_taskState", .string(task.state.rawValue)),
            ("_hop", .int(Int64(i + 1))),
            ("_reused", .bool(m.isReusedConnection)),
            ("_resumeOffset", task.resumeOffset.map { .int($0) } ?? .null),
            ("_tlsVersion", m.tlsProtocolVersion.map(JSONValue.string) ?? .null),
            ("_cipher", m.tlsCipherSuite.map(JSONValue.string) ?? .null),
            ("_tlsResumed", m.isTLSSessionResumed.map(JSONValue.bool) ?? .null),
            ("_tlsVerified", m.isTLSVerified.map(JSONValue.bool) ?? .null),
            ("_fetchType", m.fetchTypeName.isEmpty ? .null : .string(m.fetchTypeName)),
            ("_error", error.map { .string(Redaction.redactText($0)) } ?? .null),
            ("_failedPhase", m.failedPhase.map { .string($0.rawValue) } ?? .null),
        ]
        return .object(fields)
    }

    static func request(_ m: TransactionMetrics) -> JSONValue {
        let url = Redaction.redactURL(m.url)
        return .object([
            ("method", .string(m.method)),
            ("url", .string(url)),
            ("httpVersion", .string(httpVersion(m.networkProtocolName))),
            ("cookies", .array([])),
            ("headers", headers(m.requestHeaders)),
            ("queryString", queryString(url)),
            ("headersSize", .int(m.countOfRequestHeaderBytesSent > 0 ? m.countOfRequestHeaderBytesSent : -1)),
            ("bodySize", .int(m.countOfRequestBodyBytesSent)),
        ])
    }

    static func response(_ m: TransactionMetrics) -> JSONValue {
        // file, ftp and data: responses have no status line (HAR status 0) but did arrive.
        let byteStream = isByteStream(m.networkProtocolName)
        let got = m.statusCode != nil || (byteStream && m.responseStartDate != nil)
        var fields: [(String, JSONValue)] = [
            ("status", .int(Int64(m.statusCode ?? 0))),
            ("statusText", .string(m.statusCode.map(reasonPhrase) ?? "")),
            ("httpVersion", .string(got ? httpVersion(m.networkProtocolName) : "")),
            ("cookies", .array([])),
            ("headers", headers(m.responseHeaders)),
            ("content", .object([
                ("size", .int(m.countOfResponseBodyBytesReceived)),
                ("mimeType", .string(m.responseHeaders.first(named: "Content-Type") ?? "")),
            ])),
            ("redirectURL", .string(m.responseHeaders.first(named: "Location").map(Redaction.redactURL) ?? "")),
            ("headersSize", .int(!byteStream && got && m.countOfResponseHeaderBytesReceived > 0 ? m.countOfResponseHeaderBytesReceived : -1)),
            ("bodySize", .int(got ? m.countOfResponseBodyBytesReceived : -1)),
        ]
        if byteStream, let name = m.networkProtocolName {
            fields.append(("comment", .string(
                "\(name): no HTTP status (0) or header lines; the headers are what libcurl reported "
                    + "(type, size, modification time), not bytes on the wire")))
        } else if m.networkProtocolName?.lowercased() == "h2" {
            fields.append(("comment", .string(
                "headersSize is libcurl's HTTP/1-style reconstruction of the HTTP/2 header block, not HPACK bytes")))
        }
        return .object(fields)
    }

    /// Protocols whose responses have no status line (TransferKit's file, ftp and data: URLs).
    public static func isByteStream(_ protocolName: String?) -> Bool {
        ["ftp", "ftps", "file", "data"].contains(protocolName?.lowercased() ?? "")
    }

    static func headers(_ list: [HTTPHeader]) -> JSONValue {
        .array(Redaction.redactHeaders(list).map {
            .object([("name", .string($0.name)), ("value", .string($0.value))])
        })
    }

    /// The query of an already-redacted URL as HAR name/value pairs (percent-decoded).
    static func queryString(_ url: String) -> JSONValue {
        let noFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let q = noFragment.firstIndex(of: "?") else { return .array([]) }
        let pairs = noFragment[noFragment.index(after: q)...].split(separator: "&")
        return .array(pairs.map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1]) : ""
            return .object([
                ("name", .string(SecretNames.percentDecoded(String(parts[0])))),
                ("value", .string(SecretNames.percentDecoded(value))),
            ])
        })
    }

    static func httpVersion(_ protocolName: String?) -> String {
        switch protocolName?.lowercased() {
        case "h2", "http/2", "http/2.0": return "HTTP/2"
        case "h3", "http/3": return "HTTP/3"
        case "http/1.0": return "HTTP/1.0"
        case "http/1.1": return "HTTP/1.1"
        default: return protocolName ?? ""
        }
    }

    /// The standard reason phrase of the common statuses; empty for others (HAR statusText,
    /// and the monitor's progress column for an HTTP error).
    public static func reasonPhrase(_ status: Int) -> String {
        let phrases: [Int: String] = [
            100: "Continue", 200: "OK", 201: "Created", 204: "No Content", 206: "Partial Content",
            301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
            307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
            401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 408: "Request Timeout",
            416: "Range Not Satisfiable", 429: "Too Many Requests", 500: "Internal Server Error",
            502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return phrases[status] ?? ""
    }
}

/// HAR `timings` for one transaction: -1 where absent; `connect` includes `ssl`; `send`,
/// `wait` and `receive` are required, so an absent one is 0 there (HAR has no "absent").
public struct HARTimings: Sendable, Equatable {
    public var blocked, dns, connect, ssl, send, wait, receive: Double

    /// Each value is rounded to the µs first, so `time` is exactly the sum of what is written.
    public init(_ m: TransactionMetrics, _ d: TransactionTimings) {
        func us(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
        blocked = us(d.queuedMs ?? -1)
        dns = us(d.dnsMs ?? -1)
        connect = us(TransactionTimings.connectIncludingTLSMs(m) ?? Self.failedConnectMs(d) ?? -1)
        ssl = us(d.tlsMs ?? -1)
        send = us(d.requestMs ?? 0)
        wait = us(d.waitMs ?? 0)
        receive = us(d.receiveMs ?? 0)
    }

    /// A connection that failed has no connect end: its attempt (TCP, and the TLS handshake that
    /// failed) lasted until the hop ended, as the screen draws it.
    static func failedConnectMs(_ d: TransactionTimings) -> Double? {
        switch d.failedPhase {
        case .connect: return d.connectMs
        case .tls: return d.tlsMs.map { $0 + (d.connectMs ?? 0) }
        default: return nil
        }
    }

    /// The sum of the non-negative timings, `ssl` excluded (it is inside `connect`).
    public var time: Double {
        [blocked, dns, connect, send, wait, receive].filter { $0 >= 0 }.reduce(0, +)
    }

    var json: JSONValue {
        .object([
            ("blocked", .number(blocked)), ("dns", .number(dns)), ("connect", .number(connect)),
            ("ssl", .number(ssl)), ("send", .number(send)), ("wait", .number(wait)),
            ("receive", .number(receive)),
        ])
    }
}
