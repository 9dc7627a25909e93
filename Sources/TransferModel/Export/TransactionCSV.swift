import Foundation

/// The CSV export: one row per transaction. Every column is
/// documented in docs/metrics.md; the first 29 are fixed, new ones may only be appended.
public enum TransactionCSV {
    public static let header: [String] = [
        "session", "task_id", "task_kind", "hop", "method", "url", "status", "protocol",
        "remote_address", "remote_port", "local_port", "reused", "tls_version", "cipher",
        "fetch_start", "queued_ms", "dns_ms", "connect_ms", "tls_ms", "request_ms", "wait_ms",
        "receive_ms", "ttfb_ms", "total_ms", "request_header_bytes", "request_body_bytes",
        "response_header_bytes", "response_body_bytes", "error",
        // Appended columns (not in the fixed prefix).
        "session_id", "task_state", "resume_offset_bytes", "tls_verified", "fetch_type",
        "failed_phase",
    ]

    /// The whole file: header, then rows ordered by session id, task id, hop. CRLF records.
    public static func csv(_ tasks: [TaskSnapshot]) -> String {
        var out = CSVEncoding.record(header)
        for row in rows(tasks) { out += CSVEncoding.record(row) }
        return out
    }

    /// The rows, unquoted (quoting is CSVEncoding's job), in export order.
    public static func rows(_ tasks: [TaskSnapshot]) -> [[String]] {
        tasks.sorted { $0.id < $1.id }.flatMap(rows(for:))
    }

    /// A task's rows: one per transaction, or one row with an empty `hop` for a task that has
    /// none (it failed before its first request, e.g. a bad URL), so no task vanishes from the
    /// export.
    static func rows(for task: TaskSnapshot) -> [[String]] {
        let hops = task.metrics.transactionMetrics
        guard !hops.isEmpty else { return [emptyRow(task)] }
        return hops.indices.map { i in
            let timings = TransactionTimings(hops[i], transactionEnd: task.metrics.transactionEnd(at: i))
            let error = hops[i].errorDescription ?? (i == hops.count - 1 ? task.error.map(describe) : nil)
            return row(task, hop: i + 1, hops[i], timings, error: error)
        }
    }

    static func row(_ t: TaskSnapshot, hop: Int, _ m: TransactionMetrics, _ d: TransactionTimings,
                    error: String?) -> [String] {
        let text = { (s: String?) in CSVEncoding.guardFormula(s ?? "") }
        return [
            text(t.sessionName), String(t.taskIdentifier), t.kind.rawValue, String(hop), text(m.method),
            text(Redaction.redactURL(m.url)), num(m.statusCode), text(m.networkProtocolName?.lowercased()),
            text(m.remoteAddress), num(m.remotePort), num(m.localPort), m.isReusedConnection ? "true" : "false",
            text(m.tlsProtocolVersion), text(m.tlsCipherSuite),
            m.fetchStartDate.map(ExportTimestamp.iso8601) ?? "",
            ms(d.queuedMs), ms(d.dnsMs), ms(d.connectMs), ms(d.tlsMs), ms(d.requestMs), ms(d.waitMs),
            ms(d.receiveMs), ms(d.ttfbMs), ms(d.totalMs),
            String(m.countOfRequestHeaderBytesSent), String(m.countOfRequestBodyBytesSent),
            String(m.countOfResponseHeaderBytesReceived), String(m.countOfResponseBodyBytesReceived),
            text(error.map(Redaction.redactText)),
        ] + trailing(t) + [m.isTLSVerified.map { $0 ? "true" : "false" } ?? "", m.fetchTypeName,
                                m.failedPhase?.rawValue ?? ""]
    }

    static func emptyRow(_ t: TaskSnapshot) -> [String] {
        var cells = [String](repeating: "", count: 29)
        cells[0] = CSVEncoding.guardFormula(t.sessionName)
        cells[1] = String(t.taskIdentifier)
        cells[2] = t.kind.rawValue
        cells[4] = CSVEncoding.guardFormula(t.method)
        cells[5] = CSVEncoding.guardFormula(Redaction.redactURL(t.currentURL))
        cells[6] = num(t.statusCode)
        cells[28] = CSVEncoding.guardFormula(t.error.map { Redaction.redactText(describe($0)) } ?? "")
        return cells + trailing(t) + ["", "", ""]
    }

    static func trailing(_ t: TaskSnapshot) -> [String] {
        [String(t.sessionID), t.state.rawValue, t.resumeOffset.map { String($0) } ?? ""]
    }

    /// `timedOut: The request timed out. [curl 28: ...]`, secrets removed by the caller.
    static func describe(_ e: TransferError) -> String {
        var s = "\(e.code): \(e.message)"
        if let c = e.curlCode { s += " [curl \(c)\(e.curlMessage.map { ": \($0)" } ?? "")]" }
        return s
    }

    private static func num(_ v: Int?) -> String { v.map { String($0) } ?? "" }
    private static func ms(_ v: Double?) -> String { v.map(ExportTimestamp.milliseconds) ?? "" }
}
