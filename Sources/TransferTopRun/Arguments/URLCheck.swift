import Foundation
import TransferModel

/// Whether a URL typed by a user (command line, `-i` list, job file, the monitor's `n`) is one
/// we can fetch.
package enum URLCheck {
    /// What the monitor's `n` prompt was given, with `http://` in front when it names no scheme
    /// (`example.org/x`), as curl does.
    package static func withDefaultScheme(_ text: String) -> String {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty, !t.contains("://"), !t.lowercased().hasPrefix("data:") else { return t }
        return "http://" + t
    }

    /// A URL we can fetch (http, https, ftp, ftps, file, data). The message quotes a
    /// short, redacted, escaped part of the text: it may be a line of a file given by mistake
    /// (`-i /etc/shadow`) or hold a password.
    @discardableResult
    package static func checkURL(_ text: String, quoteLimit: Int = 60) throws(UsageError) -> URL {
        // The quote is built only for an error: this runs once per line of a long list.
        var shown: String { SafeQuote.quote(text, limit: quoteLimit) }
        guard let url = URLText.url(text), let schemeName = url.scheme?.lowercased() else {
            throw UsageError("not a URL: '\(shown)'")
        }
        guard let scheme = URLScheme(rawValue: schemeName) else {
            throw UsageError("unsupported scheme '\(SafeQuote.quote(schemeName, limit: 16))' in '\(shown)' (use \(URLScheme.supportedList))")
        }
        guard !scheme.needsHost || url.host?.isEmpty == false else { throw UsageError("not a URL: '\(shown)'") }
        // Foundation parses any run of digits as a port; libcurl refuses one past 65535 only
        // when the task starts, and port 0 names no server.
        if let port = url.port, !(1...65535).contains(port) {
            throw UsageError("port \(port) in '\(shown)' is not from 1 to 65535")
        }
        // A port too long for an Int reads as none at all: the text still names one.
        if scheme.needsHost, url.port == nil, let digits = portText(text), !digits.isEmpty {
            throw UsageError("port \(SafeQuote.quote(digits, limit: 24)) in '\(shown)' is not from 1 to 65535")
        }
        // A data: URL carries its body: a malformed one is a usage error now, not a failed task.
        if scheme == .data {
            do { _ = try DataURL.parse(url.absoluteString) } catch { throw UsageError(error.description) }
        }
        return url
    }

    /// The digits after the authority's last colon (`host:PORT`, `[::1]:PORT`), nil when it
    /// names no port.
    static func portText(_ text: String) -> String? {
        guard let start = text.range(of: "://")?.upperBound else { return nil }
        var authority = text[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") else { return nil }
        let digits = authority[authority.index(after: colon)...]
        return digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) ? String(digits) : nil
    }
}
