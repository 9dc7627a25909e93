import Foundation
import RunEvidence
import TransferModel
import TransferTopTelemetry
import TransferTopUI

/// Turns the text argument-parser collected for an option into the value `Options` holds,
/// with our bounds and messages. Options are declared as text, not `Int`/`Double`,
/// so that every refusal says the range and quotes the input safely, the same way for the
/// command line and job files, instead of argument-parser's generic "value is invalid".
package enum OptionValues {
    package static func nonEmpty(_ v: String, _ option: String) throws(UsageError) -> String {
        if v.isEmpty { throw UsageError("\(option) needs a non-empty value") }
        return v
    }

    package static func integer(_ v: String, _ option: String, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let n = Int(v), range.contains(n) else {
            throw UsageError("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(SafeQuote.quote(v, limit: 20))'")
        }
        return n
    }

    /// A size in bytes: digits, optionally followed by K, M or G (1024-based, as curl's), with
    /// or without a trailing `B`/`iB`.
    package static func byteSize(_ v: String, _ option: String, range: ClosedRange<Int64>) throws(UsageError) -> Int64 {
        func refuse() -> UsageError {
            UsageError("\(option) must be a size from \(Units.bytes(range.lowerBound)) to \(Units.bytes(range.upperBound)) (bytes, or with K, M or G), not '\(SafeQuote.quote(v, limit: 20))'")
        }
        let (text, shift) = Units.splitSizeSuffix(Substring(v.uppercased()))
        guard !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), text.count <= 12,
              let n = Int64(text), n <= (Int64.max >> shift) else { throw refuse() }
        let bytes = n << shift
        guard range.contains(bytes) else { throw refuse() }
        return bytes
    }

    /// `sha256//BASE64[;sha256//BASE64...]`, each hash 32 bytes. (curl also takes a key file;
    /// a hash says what is pinned without a file to keep beside the command.)
    package static func pins(_ v: String) throws(UsageError) -> String {
        let pins = v.split(separator: ";", omittingEmptySubsequences: false)
        for pin in pins {
            guard pin.hasPrefix("sha256//"), let hash = Data(base64Encoded: String(pin.dropFirst(8))), hash.count == 32 else {
                throw UsageError("--pinnedpubkey takes sha256//BASE64 hashes of 32 bytes separated by ';', not '\(SafeQuote.quote(String(pin), limit: 60))'")
            }
        }
        return v
    }

    package static func seconds(_ v: String, _ option: String) throws(UsageError) -> Double {
        guard let s = NumericBounds.seconds(v) else { throw secondsRefusal(option, v) }
        return s
    }

    /// A number of seconds that did not come as text (the daemon's socket).
    static func seconds(_ s: Double, _ option: String) throws(UsageError) {
        guard NumericBounds.validSeconds(s) else { throw secondsRefusal(option, String(s)) }
    }

    private static func secondsRefusal(_ option: String, _ shown: String) -> UsageError {
        UsageError("\(option) must be a number of seconds from \(NumericBounds.secondsText), not '\(SafeQuote.quote(shown, limit: 20))'")
    }

    package static func session(_ v: String) throws(UsageError) -> Options.SessionChoice {
        guard let kind = Options.SessionChoice(rawValue: v) else {
            throw UsageError("--session must be 'default' or 'ephemeral', not '\(SafeQuote.quote(v, limit: 20))'")
        }
        return kind
    }

    /// `-A`: a User-Agent value that may be sent (no CR, LF or NUL, and no other control
    /// character: servers log it and show it); empty sends none, as curl.
    package static func userAgent(_ v: String) throws(UsageError) -> String {
        if let problem = HeaderValidation.problem(HTTPHeader("User-Agent", v)) { throw UsageError("bad --user-agent: \(problem)") }
        if TerminalText.hasControlCharacters(v) {
            throw UsageError("bad --user-agent '\(SafeQuote.quote(v, limit: 40))': it contains a control character")
        }
        return v
    }

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    package static func logLevel(_ v: String) throws(UsageError) -> String {
        guard logLevels.contains(v.lowercased()) else {
            throw UsageError("--log-level must be one of \(logLevels.joined(separator: ", ")), not '\(SafeQuote.quote(v, limit: 20))'")
        }
        return v.lowercased()
    }

    /// `PORT`, `HOST:PORT` or `[V6]:PORT`; the host defaults to 127.0.0.1 (loopback only).
    package static func listenAddress(_ v: String, _ option: String) throws(UsageError) -> ListenAddress {
        var host = "127.0.0.1", portText = v
        if v.hasPrefix("["), let close = v.firstIndex(of: "]") {
            host = String(v[v.index(after: v.startIndex)..<close])
            portText = String(v[v.index(after: close)...].drop { $0 == ":" })
        } else if let colon = v.lastIndex(of: ":") {
            host = String(v[..<colon])
            portText = String(v[v.index(after: colon)...])
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else {
            throw UsageError("\(option) must be PORT or HOST:PORT with a port from 0 to 65535, not '\(SafeQuote.quote(v, limit: 40))'")
        }
        return ListenAddress(host: host, port: port)
    }

    /// `--otlp URL`: an http or https URL with a host, in a build that has the exporter.
    package static func otlp(_ v: String) throws(UsageError) -> String {
        guard TraceExporter.isAvailable else { throw UsageError("--otlp: \(TelemetryError.unavailable)") }
        let lower = v.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
              let host = URL(string: v)?.host, !host.isEmpty, !v.contains(where: \.isWhitespace) else {
            throw UsageError("--otlp must be an http:// or https:// URL of an OpenTelemetry collector (OTLP/HTTP), not '\(SafeQuote.quote(Redaction.redactURL(v), limit: 60))'")
        }
        return v
    }

    package static func summary(_ v: String) throws(UsageError) -> SummaryMode {
        guard let mode = SummaryMode(rawValue: v) else {
            throw UsageError("--summary must be \(SummaryMode.allCases.map(\.rawValue).joined(separator: ", ")), not '\(SafeQuote.quote(v, limit: 20))'")
        }
        return mode
    }

    /// `--slo`: parsed here so a bad budget is a usage error (exit 2) naming its column; the
    /// run parses the same text again.
    package static func budgets(_ v: String) throws(UsageError) -> String {
        do {
            _ = try BudgetParser.parse(v)
        } catch {
            throw UsageError("bad --slo '\(SafeQuote.quote(v, limit: 120))' at column \(error.column): \(error.reason)")
        }
        return v
    }
}
