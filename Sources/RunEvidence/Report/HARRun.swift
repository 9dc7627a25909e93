import Foundation
import TransferModel

/// A run read back from a HAR 1.2 file: the one `--har` writes (HARExport, docs/metrics.md),
/// whose `_sessionId`, `_taskId` and `_hop` group redirects and retries under their task, or
/// a browser's, where each entry is a task of its own.
public enum HARRun {
    /// The hops of a HAR document's text; `name` is how messages call the file.
    public static func hops(_ text: String, name: String) throws(CSVRun.ReadError) -> [ReportHop] {
        let archive: Archive
        do { archive = try JSONDecoder().decode(Archive.self, from: Data(text.utf8)) } catch {
            throw CSVRun.ReadError(reason: "\(name): not a HAR file (\(reason(error)))")
        }
        let timestamps = ExportTimestampReader()
        let hops = archive.log.entries.enumerated().map { i, e in e.hop(index: i, timestamps: timestamps) }
        if hops.isEmpty { throw CSVRun.ReadError(reason: "\(name): the archive has no entries") }
        return hops
    }

    /// JSONDecoder's error in one line: what is wrong and where.
    static func reason(_ error: Error) -> String {
        func path(_ keys: [CodingKey]) -> String {
            keys.isEmpty ? "the top" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let c)?: return "no '\(key.stringValue)' at \(path(c.codingPath))"
        case .typeMismatch(_, let c)?, .valueNotFound(_, let c)?: return "wrong type at \(path(c.codingPath))"
        case .dataCorrupted(let c)?: return c.codingPath.isEmpty ? "not JSON" : "bad value at \(path(c.codingPath))"
        default: return "not JSON"
        }
    }

    struct Archive: Decodable { var log: Log }
    struct Log: Decodable { var entries: [Entry] }

    struct Entry: Decodable {
        struct Request: Decodable {
            var method: String
            var url: String
        }
        struct Response: Decodable {
            var status: Int?
            var httpVersion: String?
        }
        /// HAR's -1 is "does not apply"; `connect` includes `ssl`.
        struct Timings: Decodable {
            var blocked, dns, connect, ssl, send, wait, receive: Double?
        }
        var startedDateTime: String?
        var time: Double?
        var request: Request
        var response: Response?
        var timings: Timings?
        var _sessionId: Int?
        var _taskId: Int?
        var _hop: Int?
        var _error: String?

        func hop(index: Int, timestamps: ExportTimestampReader) -> ReportHop {
            func ms(_ v: Double?) -> Double? { v.flatMap { $0 >= 0 && $0 <= HopSample.maxMilliseconds ? $0 : nil } }
            let t = timings
            var parts: [HopPart: Double] = [:]
            parts[.queued] = ms(t?.blocked)
            parts[.dns] = ms(t?.dns)
            parts[.tls] = ms(t?.ssl)
            parts[.connect] = ms(t?.connect).map { max(0, $0 - (parts[.tls] ?? 0)) }
            parts[.request] = ms(t?.send)
            parts[.wait] = ms(t?.wait)
            parts[.receive] = ms(t?.receive)
            // As the CSV's ttfb_ms: from the end of the queue to the first response byte.
            let beforeFirstByte: [HopPart] = [.dns, .connect, .tls, .request, .wait]
            let ttfb = parts[.wait] == nil ? nil : beforeFirstByte.compactMap { parts[$0] }.reduce(0, +)
            let status = response?.status.flatMap { $0 > 0 ? $0 : nil }
            let error = _error.flatMap { $0.isEmpty ? nil : Redaction.redactText($0) }
            let task = _taskId.map { id in _sessionId.map { "\($0).\(id)" } ?? "\(id)" } ?? "\(index + 1)"
            return ReportHop(task: task, hop: _hop ?? 1, method: request.method, url: Redaction.redactURL(request.url),
                             status: status, protocolName: Self.protocolName(response?.httpVersion),
                             start: startedDateTime.flatMap(timestamps.date), parts: parts, ttfbMs: ttfb,
                             totalMs: ms(time), error: error,
                             failed: error.map { !$0.hasPrefix("cancelled") } ?? false || (status ?? 0) >= 400)
        }

        /// HAR's `HTTP/2` back to the CSV's `h2` (HARExport.httpVersion, the other way).
        static func protocolName(_ version: String?) -> String {
            switch version?.lowercased() ?? "" {
            case "": return "-"
            case "http/2", "http/2.0", "h2": return "h2"
            case "http/3", "h3": return "h3"
            case let v: return v
            }
        }
    }
}

/// Reads the exports' ISO 8601 timestamps (`2024-05-01T12:34:56.789Z`; a browser's HAR may
/// give an offset or no fraction). One per file read: the formatters are not Sendable.
final class ExportTimestampReader {
    private let withFraction = ISO8601DateFormatter()
    private let plain = ISO8601DateFormatter()

    init() {
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        plain.formatOptions = [.withInternetDateTime]
    }

    func date(_ text: String) -> Date? {
        if text.isEmpty { return nil }
        return withFraction.date(from: text) ?? plain.date(from: text)
    }
}
