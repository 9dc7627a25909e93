import Foundation
import TransferModel

/// Whether a URL typed by a user (command line, `-i` list, job file, the monitor's `n`) is one
/// we can fetch.
enum URLCheck {
    /// A URL we can fetch today. The message quotes a short, redacted, escaped part of the
    /// text: it may be a line of a file given by mistake (`-i /etc/shadow`) or hold a password.
    @discardableResult
    /// What the monitor's `n` prompt was given, with `http://` in front when it names no scheme
    /// (`example.org/x`), as curl does (issue 11).
    static func withDefaultScheme(_ text: String) -> String {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty, !t.contains("://") else { return t }
        return "http://" + t
    }

    static func checkURL(_ text: String, quoteLimit: Int = 60) throws(UsageError) -> URL {
        // The quote is built only for an error: this runs once per line of a long list.
        var shown: String { SafeQuote.quote(text, limit: quoteLimit) }
        guard let url = URLText.url(text), let scheme = url.scheme?.lowercased(), url.host != nil || scheme == "file" else {
            throw UsageError("not a URL: '\(shown)'")
        }
        // ftp and file are refused here rather than failing later as "unsupported" (until
        // the protocols issue adds them).
        let supported = ["http", "https"]
        if !supported.contains(scheme) {
            throw UsageError("unsupported scheme '\(SafeQuote.quote(scheme, limit: 16))' in '\(shown)' (use http or https)")
        }
        return url
    }
}
