import Foundation
import TransferModel

/// `--input-file` at scale (issue 8): lines are split on bytes (not grapheme clusters), each
/// URL is parsed once, and every bad line is reported with its number before anything runs.
extension InputFile {
    /// Non-blank, non-comment lines with their 1-based numbers, trimmed of spaces, tabs and CR.
    public static func numberedLines(in text: String) -> [(line: Int, text: Substring)] {
        var result: [(line: Int, text: Substring)] = []
        var number = 0
        for raw in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            var start = raw.startIndex, end = raw.endIndex
            while start < end, Self.isBlank(raw[start]) { start = raw.index(after: start) }
            while end > start, Self.isBlank(raw[raw.index(before: end)]) { end = raw.index(before: end) }
            guard start < end, raw[start] != UInt8(ascii: "#") else { continue }
            result.append((number, Substring(raw[start..<end])))
        }
        return result
    }

    private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0B || b == 0x0C }

    /// Every URL of `text` (as text: checked here, parsed again when its task starts), or a usage error listing the first bad lines by number.
    static func parseURLs(in text: String, file: String) throws(UsageError) -> [String] {
        let lines = numberedLines(in: text)
        var urls: [String] = []
        urls.reserveCapacity(lines.count)
        var bad: [String] = []
        var badCount = 0
        for (n, t) in lines {
            // The common line needs no parser (`URLText.isPlainHTTP`): kept as it is.
            if URLText.isPlainHTTP(t) {
                urls.append(String(t))
                continue
            }
            do {
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
