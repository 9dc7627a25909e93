import Foundation
import TransferModel

/// A run read back from its `--csv` export (TransactionCSV's columns, docs/csv.md): the
/// hops with every duration kept (compare needs the values, not a histogram; the report the
/// parts of each hop).
public enum CSVRun {
    public struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public init(reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    static let needed = ["url", "hop", "protocol", "status", "error", "dns_ms", "connect_ms", "tls_ms", "ttfb_ms", "total_ms"]

    /// The hops of an export's text as the statistics see them; `name` is how messages call
    /// the file.
    public static func samples(_ text: String, name: String) throws(ReadError) -> [HopSample] {
        try hops(text, name: name).map(\.sample)
    }

    /// The hops of an export's text. Columns past `needed` (task ids, fetch_start, the parts
    /// of the waterfall) are used when there and left empty when not.
    public static func hops(_ text: String, name: String) throws(ReadError) -> [ReportHop] {
        let records: [[String]]
        do { records = try CSVRecords.parse(text) } catch {
            throw ReadError(reason: "\(name): line \(error.line): \(error.reason)")
        }
        guard let header = records.first, !header.isEmpty, header != [""] else {
            throw ReadError(reason: "\(name): empty file, not a transfertop --csv export")
        }
        var index: [String: Int] = [:]
        for (i, h) in header.enumerated() where index[h] == nil { index[h] = i }
        let missing = needed.filter { index[$0] == nil }
        if !missing.isEmpty {
            throw ReadError(reason: "\(name): not a transfertop --csv export (no column \(missing.map { "'\($0)'" }.joined(separator: ", ")))")
        }
        let timestamps = ExportTimestampReader()
        var hops: [ReportHop] = []
        for (n, record) in records.enumerated().dropFirst() {
            if record == [""] { continue }  // a blank line
            guard record.count >= header.count else {
                throw ReadError(reason: "\(name): record \(n + 1) has \(record.count) fields, the header \(header.count)")
            }
            func cell(_ column: String) -> String { index[column].map { record[$0] } ?? "" }
            // The phase a hop failed in has the failure's time (an appended column names it):
            // not a sample of the phase, as for the live run's statistics.
            let failedPhase = cell("failed_phase")
            func ms(_ column: String) throws(ReadError) -> Double? {
                let v = cell(column)
                if v.isEmpty || (!failedPhase.isEmpty && column == failedPhase + "_ms") { return nil }
                guard let d = Double(v), d.isFinite, d >= 0, d <= HopSample.maxMilliseconds else {
                    throw ReadError(reason: "\(name): record \(n + 1): \(column) is '\(String(v.prefix(20)))', not milliseconds")
                }
                return d
            }
            var parts: [HopPart: Double] = [:]
            for part in HopPart.allCases {
                let column = part == .queued ? "queued_ms" : "\(part.rawValue)_ms"
                if let v = try ms(column) { parts[part] = v }
            }
            let status = Int(cell("status"))
            let proto = cell("protocol"), error = cell("error")
            let session = cell("session_id"), task = cell("task_id")
            hops.append(ReportHop(
                task: session.isEmpty ? (task.isEmpty ? "\(n)" : task) : "\(session).\(task)",
                hop: Int(cell("hop")), method: cell("method"), url: Redaction.redactURL(cell("url")), status: status,
                protocolName: proto.isEmpty ? "-" : proto.lowercased(), start: timestamps.date(cell("fetch_start")),
                parts: parts, ttfbMs: try ms("ttfb_ms"), totalMs: try ms("total_ms"),
                error: error.isEmpty ? nil : Redaction.redactText(error),
                failed: !error.isEmpty && !error.hasPrefix("cancelled") || (status ?? 0) >= 400))
        }
        if hops.isEmpty { throw ReadError(reason: "\(name): the export has no transactions") }
        return hops
    }
}

/// RFC 4180 records: fields separated by commas, records by CRLF or LF, quoted fields with
/// doubled quotes inside.
enum CSVRecords {
    struct Problem: Error {
        var line: Int
        var reason: String
    }

    static func parse(_ text: String) throws(Problem) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var inQuotes = false, wasQuoted = false
        var line = 1, quoteLine = 1
        var it = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let p = pending { pending = nil; return p }
            return it.next()
        }
        var any = false
        while let c = next() {
            any = true
            if inQuotes {
                if c == "\"" {
                    let after = next()
                    if after == "\"" { field.unicodeScalars.append("\"") } else { inQuotes = false; pending = after }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard field.isEmpty, !wasQuoted else { throw Problem(line: line, reason: "a quote inside an unquoted field") }
                inQuotes = true
                wasQuoted = true
                quoteLine = line
            case ",":
                record.append(field)
                field = ""
                wasQuoted = false
            case "\r":
                let after = next()
                if after != "\n" { pending = after }
                fallthrough
            case "\n":
                record.append(field)
                records.append(record)
                record = []
                field = ""
                wasQuoted = false
                line += 1
            default:
                if wasQuoted { throw Problem(line: line, reason: "text after a closing quote") }
                field.unicodeScalars.append(c)
            }
        }
        if inQuotes { throw Problem(line: quoteLine, reason: "a quoted field is never closed") }
        if any && (!field.isEmpty || !record.isEmpty || wasQuoted) {
            record.append(field)
            records.append(record)
        }
        return records
    }
}
