import Foundation
import TransferModel

/// `--input-file` at scale (issue 8): lines are split on bytes (not grapheme clusters), each
/// URL is parsed once, and every bad line is reported with its number before anything runs.
extension InputFile {
    /// Non-blank, non-comment lines with their 1-based numbers, trimmed of spaces, tabs and CR.
    public static func numberedLines(in text: String) -> [(line: Int, text: Substring)] {
        var result: [(line: Int, text: Substring)] = []
        forEachNumberedLine(in: text) { result.append(($0, $1)) }
        return result
    }

    /// `numberedLines` one at a time, without the array of them (issue 8: a 1,000,000-line
    /// list held a million substrings, each a retain of the text, before the first request).
    static func forEachNumberedLine(in text: String, _ body: (Int, Substring) -> Void) {
        var number = 0
        var lineStart = text.utf8.startIndex
        let end = text.utf8.endIndex
        while true {
            let lineEnd = text.utf8[lineStart...].firstIndex(of: 0x0A) ?? end
            number += 1
            let raw = text.utf8[lineStart..<lineEnd]
            var start = raw.startIndex, stop = raw.endIndex
            while start < stop, Self.isBlank(raw[start]) { start = raw.index(after: start) }
            while stop > start, Self.isBlank(raw[raw.index(before: stop)]) { stop = raw.index(before: stop) }
            if start < stop, raw[start] != UInt8(ascii: "#") { body(number, Substring(raw[start..<stop])) }
            guard lineEnd < end else { return }
            lineStart = text.utf8.index(after: lineEnd)
        }
    }

    private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0B || b == 0x0C }

    /// Every URL of `text` (as text: checked here, parsed again when its task starts), or a usage error listing the first bad lines by number.
    static func parseURLs(in text: String, file: String) throws(UsageError) -> [String] {
        var urls: [String] = []
        var bad: [String] = []
        var badCount = 0
        forEachNumberedLine(in: text) { n, t in
            // The common line needs no parser (`URLText.isPlainHTTP`): kept as it is.
            if URLText.isPlainHTTP(t) {
                urls.append(String(t))
                return
            }
            do throws(UsageError) {
                // Kept as the parsed URL's text (encoded once: the task parses it again), and
                // a bad line is quoted only briefly (a file given by mistake, `-i /etc/shadow`,
                // must not be echoed).
                urls.append(try URLCheck.checkURL(String(t), quoteLimit: 16).absoluteString)
            } catch {
                badCount += 1
                if bad.count < 10 { bad.append("line \(n): \(error.reason)") }
            }
        }
        guard badCount == 0 else {
            let more = badCount > bad.count ? "; and \(badCount - bad.count) more" : ""
            throw UsageError("input file '\(file)' has \(badCount) bad line(s): " + bad.joined(separator: "; ") + more)
        }
        return urls
    }
}
