import Foundation
import TransferKit
import TransferTopUI

/// An error in a job file, naming file, line and field.
public struct JobFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var field: String?
    public var message: String
    public var description: String {
        "\(file):\(line): " + (field.map { "field '\($0)': " } ?? "") + message
    }
}

/// Job files (docs/jobs.md): TOML 1.0, `[[session]]` tables with their `[[session.task]]`
/// tables; toml++ (through TOMLKit) parses, this reads the fields and names the line of a bad one.
public enum JobFile {
    public static func load(_ path: String, outputDirectory: String, defaults: Options = Options()) throws -> RunPlan {
        let text = try TextFile.read(path, "job file")
        let base = (path as NSString).deletingLastPathComponent
        let sessions: [SessionPlan]
        do {
            sessions = try parse(text, file: path, baseDirectory: base.isEmpty ? "." : base, defaults: defaults)
        } catch {
            throw UsageError("\(error)")
        }
        // The command line's -k, --pinnedpubkey, --cert/--key, -u, --netrc, -b hold for every
        // session of the job, and -c writes the first session's cookies (DECISIONS 111).
        let credential = try defaults.user?.credential()
        var plan = RunPlan(sessions: sessions.map { s in
            var s = s
            s.applySecurity(defaults, credential: credential)
            return s
        }, outputDirectory: outputDirectory, csv: defaults.csv, har: defaults.har)
        plan.existingFiles = defaults.existingFiles
        plan.usesContentDisposition = defaults.contentDisposition
        plan.cookieJar = defaults.cookieJar
        return plan
    }

    /// Parses a job file's text into session plans.
    public static func parse(_ text: String, file: String, baseDirectory: String = ".",
                             defaults: Options = Options()) throws(JobFileError) -> [SessionPlan] {
        let document: ConfigDocument
        do { document = try ConfigDocument.parse(text) } catch {
            throw JobFileError(file: file, line: error.line, field: nil, message: "not valid TOML: \(error.message)")
        }
        return try JobReader(file: file, baseDirectory: baseDirectory, defaults: defaults, document: document).sessions()
    }
}

/// Reads sessions and tasks out of a parsed job file.
struct JobReader {
    let file: String
    let baseDirectory: String
    let defaults: Options
    let document: ConfigDocument

    static let sessionFields = ["name", "kind", "max_connections_per_host", "request_timeout", "resource_timeout", "headers", "task"]
    static let taskFields = ["kind", "url", "file", "method"]

    func fail(_ path: String, _ field: String?, _ message: String) -> JobFileError {
        JobFileError(file: file, line: document.line(of: path), field: field, message: message)
    }

    func sessions() throws(JobFileError) -> [SessionPlan] {
        for key in document.root.keys where key != "session" {
            throw fail(key, key, "unknown top-level key (a job file holds [[session]] tables)")
        }
        guard let value = document.root["session"] else { throw fail("", nil, "no [[session]] table") }
        guard let tables = Self.tables(value) else { throw fail("session", "session", "must be [[session]] tables, got \(value.typeName)") }
        guard !tables.isEmpty else { throw fail("session", nil, "no [[session]] table") }
        var out: [SessionPlan] = []
        for (i, table) in tables.enumerated() {
            out.append(try session(table, path: "session[\(i)]", number: i + 1))
        }
        return out
    }

    /// An array of tables (`[[x]]` or `x = [{...}]`), else nil.
    static func tables(_ value: ConfigValue) -> [ConfigTable]? {
        guard let items = value.array else { return nil }
        let tables = items.compactMap(\.table)
        return tables.count == items.count ? tables : nil
    }

    func session(_ table: ConfigTable, path: String, number: Int) throws(JobFileError) -> SessionPlan {
        // The command line's options are every session's defaults; the table's keys override
        // them. `--cache` and `--cache-policy` apply to every session (each kind its cache).
        var s = SessionPlan(name: "session-\(number)", options: defaults)
        for key in table.keys {
            let value = table[key]!
            let fail = { (m: String) in self.fail(path + "." + key, key, m) }
            switch (key, value) {
            case ("name", .string(let v)):
                // Line mode and the monitor print the name: no terminal control sequences.
                guard !TerminalText.hasControlCharacters(v) else {
                    throw fail("must not contain control characters, not \"\(SafeQuote.quote(v, limit: 30))\"")
                }
                // An empty name is an empty SESSION column and nothing to tell sessions by.
                guard !v.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail("must not be empty") }
                s.name = v
            case ("kind", .string(let v)):
                guard let k = Options.SessionChoice(rawValue: v) else { throw fail("must be \"default\" or \"ephemeral\", not \"\(SafeQuote.quote(v, limit: 20))\"") }
                s.kind = k
            case ("max_connections_per_host", _) where value.number != nil:
                guard let whole = NumericBounds.wholeNumber(value.number!, in: 1...1000) else { throw fail("must be a whole number from 1 to 1000") }
                s.maxConnectionsPerHost = whole
            case ("request_timeout", _) where value.number != nil, ("resource_timeout", _) where value.number != nil:
                let n = value.number!
                guard NumericBounds.validSeconds(n) else { throw fail("must be a number of seconds from \(NumericBounds.secondsText)") }
                if key == "request_timeout" { s.requestTimeout = n } else { s.resourceTimeout = n }
            case ("headers", .array(let items)):
                let strings = items.compactMap(\.string)
                guard strings.count == items.count else { throw fail("must be an array of strings like [\"Accept: */*\"]") }
                do { s.headers = try strings.map(HeaderParsing.parse) } catch { throw fail(error.reason) }
            case ("task", _):
                guard let tasks = Self.tables(value) else { throw fail("must be [[session.task]] tables, got \(value.typeName)") }
                for (j, t) in tasks.enumerated() { s.tasks.append(try task(t, path: path + ".task[\(j)]")) }
            case ("name", _), ("kind", _): throw fail("must be a string, got \(value.typeName)")
            case ("max_connections_per_host", _), ("request_timeout", _), ("resource_timeout", _):
                throw fail("must be a number, got \(value.typeName)")
            case ("headers", _): throw fail("must be an array of strings like [\"Accept: */*\"]")
            default:
                throw fail("unknown session field (fields: \(Self.sessionFields.joined(separator: ", ")))")
            }
        }
        return s
    }

    func task(_ table: ConfigTable, path: String) throws(JobFileError) -> TaskPlan {
        var strings: [String: String] = [:]
        for key in table.keys {
            let fail = { (m: String) in self.fail(path + "." + key, key, m) }
            guard Self.taskFields.contains(key) else { throw fail("unknown task field (fields: \(Self.taskFields.joined(separator: ", ")))") }
            guard case .string(let v) = table[key]! else { throw fail("must be a string, got \(table[key]!.typeName)") }
            strings[key] = v
        }
        let kindText = strings["kind"] ?? "download"
        guard let kind = TaskKind(rawValue: kindText) else {
            throw fail(path + ".kind", "kind", "must be \"download\", \"data\" or \"upload\", not \"\(SafeQuote.quote(kindText, limit: 20))\"")
        }
        guard let urlText = strings["url"] else { throw fail(path, "url", "missing (every task needs a url)") }
        let url: URL
        do { url = try URLCheck.checkURL(urlText) } catch { throw fail(path + ".url", "url", error.reason) }
        var file: String? = nil
        if let f = strings["file"] {
            guard kind == .upload else { throw fail(path + ".file", "file", "only upload tasks take a file") }
            file = f.hasPrefix("/") ? f : baseDirectory + "/" + f
            do { try Preflight.checkUpload(file) } catch { throw fail(path + ".file", "file", error.reason) }
        } else if kind == .upload {
            throw fail(path, "file", "missing (an upload task needs a file)")
        }
        let method = strings["method"]?.uppercased()
        if let m = method, m.isEmpty || !m.allSatisfy({ $0.isLetter }) { throw fail(path + ".method", "method", "not an HTTP method") }
        return TaskPlan(kind: kind, url: url, method: method, file: file)
    }
}
