import Foundation
import TransferModel

/// A finished task as spans (DECISIONS 186): one root span for the task, a child span per hop
/// (each redirect, retry or resume is a hop: its own request), and under each hop a child span
/// per phase it went through (queued, dns, connect, tls, request, wait, receive), with the
/// boundaries the CSV's `*_ms` columns have (`TransactionTimings`). Pure: no clock, no I/O.
public enum TaskTrace {
    /// The spans, the root first, each hop followed by its phases; parents are indices.
    public static func spans(for task: TaskSnapshot) -> [SpanDescription] {
        let hops = task.metrics.transactionMetrics
        let taskStart = task.metrics.taskIntervalStart
        let taskEnd = task.metrics.taskIntervalEnd
            ?? hops.indices.last.flatMap { task.metrics.transactionEnd(at: $0) } ?? taskStart
        var spans = [root(task, start: taskStart, end: max(taskStart, taskEnd))]
        for i in hops.indices {
            let hopEnd = task.metrics.transactionEnd(at: i)
            let hop = hopSpan(task, index: i, end: hopEnd)
            let hopIndex = spans.count
            spans.append(hop)
            for phase in phases(hops[i], transactionEnd: hopEnd) {
                spans.append(phaseSpan(phase, parent: hopIndex))
            }
        }
        return spans
    }

    static func root(_ task: TaskSnapshot, start: Date, end: Date) -> SpanDescription {
        var a: [String: SpanValue] = [
            "transfertop.task.kind": .string(task.kind.rawValue),
            "transfertop.task.state": .string(task.state.rawValue),
            "transfertop.session": .string(task.sessionName),
            "transfertop.task.id": .int(Int64(task.taskIdentifier)),
            "transfertop.redirect_count": .int(Int64(task.metrics.redirectCount)),
            "transfertop.hops": .int(Int64(task.metrics.transactionMetrics.count)),
            "transfertop.bytes_received": .int(task.countOfBytesReceived),
            "transfertop.bytes_sent": .int(task.countOfBytesSent),
        ]
        a.merge(method(task.method)) { $1 }
        a.merge(urlAttributes(task.originalURL)) { $1 }
        if let status = task.statusCode { a["http.response.status_code"] = .int(Int64(status)) }
        var error: String? = nil
        if let e = task.error {
            a["error.type"] = .string(String(describing: e.code))
            error = Redaction.redactText("\(e.code): \(e.message)")
        } else if let status = task.statusCode, status >= 400 {
            a["error.type"] = .string(String(status))
            error = "HTTP \(status)"
        }
        return SpanDescription(name: task.kind.rawValue, kind: .internal, start: start, end: end,
                               parent: nil, attributes: a, error: error)
    }

    static func hopSpan(_ task: TaskSnapshot, index i: Int, end: Date?) -> SpanDescription {
        let m = task.metrics.transactionMetrics[i]
        let start = m.fetchStartDate ?? task.metrics.taskIntervalStart
        var a = method(m.method).merging(urlAttributes(m.url)) { $1 }
        a["transfertop.hop"] = .int(Int64(i + 1))
        if i > 0 { a["http.request.resend_count"] = .int(Int64(i)) }
        if let status = m.statusCode { a["http.response.status_code"] = .int(Int64(status)) }
        if let p = protocolVersion(m.networkProtocolName) {
            a["network.protocol.name"] = .string("http")
            a["network.protocol.version"] = .string(p)
        }
        if let address = m.remoteAddress { a["network.peer.address"] = .string(address) }
        if let port = m.remotePort { a["network.peer.port"] = .int(Int64(port)) }
        if let tls = m.tlsProtocolVersion { a["tls.protocol.version"] = .string(tlsVersion(tls)) }
        if let cipher = m.tlsCipherSuite { a["tls.cipher"] = .string(cipher) }
        a["transfertop.connection.reused"] = .bool(m.isReusedConnection)
        a["http.request.body.size"] = .int(m.countOfRequestBodyBytesSent)
        a["http.response.body.size"] = .int(m.countOfResponseBodyBytesReceived)
        var error: String? = nil
        if let description = m.errorDescription {
            error = Redaction.redactText(description)
            let last = i == task.metrics.transactionMetrics.count - 1
            a["error.type"] = .string(last ? task.error.map { String(describing: $0.code) } ?? "error" : "error")
        } else if let status = m.statusCode, status >= 400 {
            a["error.type"] = .string(String(status))
            error = "HTTP \(status)"
        }
        return SpanDescription(name: spanName(m.method), kind: .client, start: start,
                               end: max(start, end ?? start), parent: 0, attributes: a, error: error)
    }

    static func phaseSpan(_ p: PhaseInterval, parent: Int) -> SpanDescription {
        SpanDescription(name: p.phase.rawValue, kind: .internal, start: p.start, end: p.end, parent: parent,
                        attributes: ["transfertop.phase": .string(p.phase.rawValue)],
                        error: p.failed ? "failed in \(p.phase.rawValue)" : nil)
    }
}
