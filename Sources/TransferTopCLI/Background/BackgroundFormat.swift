import BackgroundWire
import Foundation
import TransferTopDaemon

/// How `status`, `wait` and `attach` write background tasks: one line each, plain text.
enum BackgroundFormat {
    static func line(_ event: BackgroundEvent) -> String {
        switch event.kind {
        case "state":
            guard let t = event.task else { return "\(event.session): state" }
            return "\(event.session):\(t.number) \(describe(t))"
        case "invalidated": return "\(event.session): session invalidated"
        default: return "\(event.session): \(event.note ?? event.kind)"
        }
    }

    /// `completed ok 200 URL -> PATH`, `running 40% URL`, `completed failed: why URL`,
    /// `completed cancelled, resume data kept URL` (a download cancelled to be continued).
    static func describe(_ t: BackgroundTaskStatus) -> String {
        var parts = [t.state]
        if t.isCancelledWithResumeData {
            return "completed cancelled, resume data kept " + t.url
        } else if t.state == "completed" {
            parts.append(t.succeeded ? "ok" : "failed")
        } else if let total = t.bytesExpected, total > 0 {
            parts.append("\(min(100, t.bytesReceived * 100 / total))%")
        } else if t.bytesReceived > 0 {
            parts.append("\(t.bytesReceived) bytes")
        }
        if let code = t.statusCode { parts.append(String(code)) }
        if let error = t.error { parts.append("(\(error))") }
        parts.append(t.url)
        if let path = t.path, t.state == "completed" { parts.append("-> \(path)") }
        return parts.joined(separator: " ")
    }

    /// The session line's end: `, limit 102400 bytes/s, 3 per host`, what the daemon runs the
    /// session's tasks within (a rate only when one was set).
    static func limits(_ s: BackgroundSessionStatus) -> String {
        var parts: [String] = []
        if let rate = s.rateLimit { parts.append(rate > 0 ? "limit \(rate) bytes/s" : "no limit") }
        if let n = s.connectionsPerHost { parts.append("\(n) per host") }
        return parts.map { ", " + $0 }.joined()
    }

    static func table(_ sessions: [BackgroundSessionStatus]) -> [String] {
        if sessions.isEmpty { return ["no background sessions"] }
        var lines: [String] = []
        for s in sessions {
            let unfinished = s.tasks.filter { $0.state != "completed" }.count
            let failed = s.tasks.filter { $0.state == "completed" && !$0.succeeded && !$0.isCancelledWithResumeData }.count
            lines.append("\(s.name)\(s.invalidated ? " (invalidated)" : ""): \(s.tasks.count) task(s), \(unfinished) unfinished, \(failed) failed"
                         + limits(s))
            for t in s.tasks { lines.append("  \(s.name):\(t.number) \(describe(t))") }
        }
        return lines
    }
}
