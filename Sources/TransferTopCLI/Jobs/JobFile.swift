import Foundation
import TransferKit

/// An error in a job file, naming file, line and field (SPEC T9).
public struct JobFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var field: String?
    public var message: String
    public var description: String {
        "\(file):\(line): " + (field.map { "field '\($0)': " } ?? "") + message
    }
}

/// Job files (docs/jobs.md): a small TOML subset parsed by hand — `[[session]]` and
/// `[[session.task]]` tables, `key = value` with strings, numbers and arrays of strings.
public enum JobFile {
    public static func load(_ path: String, outputDirectory: String, defaults: Options = Options()) throws -> RunPlan {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read job file '\(path)'") }
        guard let text = String(data: data, encoding: .utf8) else { throw UsageError("job file '\(path)' is not UTF-8") }
        let base = (path as NSString).deletingLastPathComponent
        do {
            let sessions = try parse(text, file: path, baseDirectory: base.isEmpty ? "." : base, defaults: defaults)
            var plan = RunPlan(sessions: sessions, outputDirectory: outputDirectory, csv: defaults.csv, har: defaults.har)
            plan.existingFiles = defaults.existingFiles
            return plan
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// Parses a job file's text into session plans.
    public static func parse(_ text: String, file: String, baseDirectory: String = ".",
                             defaults: Options = Options()) throws(JobFileError) -> [SessionPlan] {
        var builder = JobBuilder(file: file, baseDirectory: baseDirectory, defaults: defaults)
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            try builder.feed(String(raw), line: offset + 1)
        }
        return try builder.finish()
    }
}

/// A value on the right of `=`.
enum JobValue: Equatable {
    case string(String), number(Double), strings([String])

    var typeName: String {
        switch self {
        case .string: return "a string"
        case .number: return "a number"
        case .strings: return "an array of strings"
        }
    }
}

/// Accumulates tables line by line; the current table is the last session or its last task.
struct JobBuilder {
    let file: String
    let baseDirectory: String
    let defaults: Options
    var sessions: [(plan: SessionPlan, line: Int)] = []
    var tasks: [[PendingTask]] = []
    var inTask = false

    struct PendingTask {
        var line: Int
        var fields: [String: (JobValue, Int)] = [:]
    }

    init(file: String, baseDirectory: String, defaults: Options) {
        self.file = file
        self.baseDirectory = baseDirectory
        self.defaults = defaults
    }

    func fail(_ line: Int, _ field: String?, _ message: String) -> JobFileError {
        JobFileError(file: file, line: line, field: field, message: message)
    }

    mutating func feed(_ raw: String, line: Int) throws(JobFileError) {
        let text = JobLexer.stripComment(raw).trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return }
        if text.hasPrefix("[") { try header(text, line: line); return }
        guard let eq = text.firstIndex(of: "=") else {
            throw fail(line, nil, "expected `key = value`, `[[session]]` or `[[session.task]]`, got \"\(SafeQuote.quote(text, limit: 40))\"")
        }
        let key = text[..<eq].trimmingCharacters(in: .whitespaces)
        let valueText = text[text.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw fail(line, nil, "bad key `\(SafeQuote.quote(key, limit: 40))`")
        }
        let value: JobValue
        do { value = try JobLexer.value(valueText) } catch { throw fail(line, key, error.description) }
        try assign(key, value, line: line)
    }

    mutating func header(_ text: String, line: Int) throws(JobFileError) {
        switch text {
        case "[[session]]":
            var plan = SessionPlan(name: "session-\(sessions.count + 1)")
            plan.kind = defaults.session
            plan.maxConnectionsPerHost = defaults.maxConnectionsPerHost
            plan.requestTimeout = defaults.requestTimeout
            plan.resourceTimeout = defaults.resourceTimeout
            plan.caFile = defaults.caCertificate
            plan.locationTrusted = defaults.locationTrusted
            sessions.append((plan, line))
            tasks.append([])
            inTask = false
        case "[[session.task]]":
            guard !sessions.isEmpty else { throw fail(line, nil, "`[[session.task]]` before any `[[session]]`") }
            tasks[tasks.count - 1].append(PendingTask(line: line))
            inTask = true
        default:
            throw fail(line, nil, "unknown table \(SafeQuote.quote(text, limit: 40)) (expected [[session]] or [[session.task]])")
        }
    }

    mutating func assign(_ key: String, _ value: JobValue, line: Int) throws(JobFileError) {
        guard !sessions.isEmpty else { throw fail(line, key, "outside a table; start with [[session]]") }
        if inTask {
            let allowed = ["kind", "url", "file", "method"]
            guard allowed.contains(key) else { throw fail(line, key, "unknown task field (fields: \(allowed.joined(separator: ", ")))") }
            guard case .string = value else { throw fail(line, key, "must be a string, got \(value.typeName)") }
            let t = tasks.count - 1
            if tasks[t][tasks[t].count - 1].fields[key] != nil { throw fail(line, key, "given twice") }
            tasks[t][tasks[t].count - 1].fields[key] = (value, line)
            return
        }
        try setSession(key, value, line: line, &sessions[sessions.count - 1].plan)
    }

    func setSession(_ key: String, _ value: JobValue, line: Int, _ s: inout SessionPlan) throws(JobFileError) {
        switch (key, value) {
        case ("name", .string(let v)): s.name = v
        case ("kind", .string(let v)):
            guard let k = Options.SessionChoice(rawValue: v) else { throw fail(line, key, "must be \"default\" or \"ephemeral\", not \"\(SafeQuote.quote(v, limit: 20))\"") }
            s.kind = k
        case ("max_connections_per_host", .number(let n)):
            guard let whole = NumericBounds.wholeNumber(n, in: 1...1000) else { throw fail(line, key, "must be a whole number from 1 to 1000") }
            s.maxConnectionsPerHost = whole
        case ("request_timeout", .number(let n)), ("resource_timeout", .number(let n)):
            guard NumericBounds.validSeconds(n) else { throw fail(line, key, "must be a number of seconds from \(NumericBounds.secondsText)") }
            if key == "request_timeout" { s.requestTimeout = n } else { s.resourceTimeout = n }
        case ("headers", .strings(let hs)):
            do { s.headers = try hs.map(HeaderParsing.parse) } catch { throw fail(line, key, error.reason) }
        case ("name", _), ("kind", _): throw fail(line, key, "must be a string, got \(value.typeName)")
        case ("max_connections_per_host", _), ("request_timeout", _), ("resource_timeout", _):
            throw fail(line, key, "must be a number, got \(value.typeName)")
        case ("headers", _): throw fail(line, key, "must be an array of strings like [\"Accept: */*\"]")
        default:
            throw fail(line, key, "unknown session field (fields: name, kind, max_connections_per_host, request_timeout, resource_timeout, headers)")
        }
    }

    func finish() throws(JobFileError) -> [SessionPlan] {
        guard !sessions.isEmpty else { throw fail(1, nil, "no [[session]] table") }
        var out: [SessionPlan] = []
        for (i, entry) in sessions.enumerated() {
            var plan = entry.plan
            for pending in tasks[i] { plan.tasks.append(try task(pending)) }
            out.append(plan)
        }
        return out
    }

    func task(_ p: PendingTask) throws(JobFileError) -> TaskPlan {
        func string(_ key: String) -> (String, Int)? {
            guard let (v, l) = p.fields[key], case .string(let s) = v else { return nil }
            return (s, l)
        }
        let kindText = string("kind") ?? ("download", p.line)
        guard let kind = TaskKind(rawValue: kindText.0) else {
            throw fail(kindText.1, "kind", "must be \"download\", \"data\" or \"upload\", not \"\(SafeQuote.quote(kindText.0, limit: 20))\"")
        }
        guard let (urlText, urlLine) = string("url") else { throw fail(p.line, "url", "missing (every task needs a url)") }
        let url: URL
        do { url = try URLCheck.checkURL(urlText) } catch { throw fail(urlLine, "url", error.reason) }
        var file: String? = nil
        if let (f, l) = string("file") {
            guard kind == .upload else { throw fail(l, "file", "only upload tasks take a file") }
            file = f.hasPrefix("/") ? f : baseDirectory + "/" + f
            do { try Preflight.checkUpload(file) } catch { throw fail(l, "file", error.reason) }
        } else if kind == .upload {
            throw fail(p.line, "file", "missing (an upload task needs a file)")
        }
        let method = string("method")?.0.uppercased()
        if let m = method, m.isEmpty || !m.allSatisfy({ $0.isLetter }) { throw fail(string("method")!.1, "method", "not an HTTP method") }
        return TaskPlan(kind: kind, url: url, method: method, file: file)
    }
}

/// Values and comments of the job-file syntax.
enum JobLexer {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Drops a `#` comment that is not inside a string.
    static func stripComment(_ line: String) -> String {
        var inString = false, escaped = false
        for (i, c) in zip(line.indices, line) {
            if escaped { escaped = false; continue }
            if c == "\\" && inString { escaped = true; continue }
            if c == "\"" { inString.toggle() }
            if c == "#" && !inString { return String(line[..<i]) }
        }
        return line
    }

    static func value(_ text: String) throws(Failure) -> JobValue {
        if text.hasPrefix("\"") {
            var rest = Substring(text)
            let s = try string(&rest)
            guard rest.trimmingCharacters(in: .whitespaces).isEmpty else { throw Failure(description: "text after the closing quote") }
            return .string(s)
        }
        if text.hasPrefix("[") { return .strings(try array(text)) }
        if let n = Double(text.replacingOccurrences(of: "_", with: "")) { return .number(n) }
        if text.isEmpty { throw Failure(description: "missing value") }
        throw Failure(description: "cannot read value `\(SafeQuote.quote(text, limit: 40))` (strings need double quotes)")
    }

    /// Reads a double-quoted string from the front of `rest`.
    static func string(_ rest: inout Substring) throws(Failure) -> String {
        rest = rest.drop { $0 == " " || $0 == "\t" }
        guard rest.first == "\"" else { throw Failure(description: "expected a double-quoted string") }
        rest.removeFirst()
        var out = ""
        while let c = rest.popFirst() {
            if c == "\"" { return out }
            if c == "\\" {
                guard let e = rest.popFirst() else { break }
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "\"", "\\": out.append(e)
                default: throw Failure(description: "unknown escape \\\(SafeQuote.quote(String(e)))")
                }
                continue
            }
            out.append(c)
        }
        throw Failure(description: "unterminated string")
    }

    static func array(_ text: String) throws(Failure) -> [String] {
        var rest = Substring(text).dropFirst()
        var items: [String] = []
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.first == "]" { rest.removeFirst(); break }
            items.append(try string(&rest))
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.first == "," { rest.removeFirst(); continue }
            if rest.first == "]" { rest.removeFirst(); break }
            throw Failure(description: "expected `,` or `]` in the array (arrays must be on one line)")
        }
        guard rest.trimmingCharacters(in: .whitespaces).isEmpty else { throw Failure(description: "text after `]`") }
        return items
    }
}
