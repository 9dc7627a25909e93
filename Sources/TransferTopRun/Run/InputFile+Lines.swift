import Foundation
import TransferModel

/// `--input-file` at scale: lines are split on bytes (not grapheme clusters), each
/// URL is parsed once, and every bad line is reported with its number before anything runs.
extension InputFile {
    /// Non-blank, non-comment lines with their 1-based numbers, trimmed of spaces, tabs and CR.
    public static func numberedLines(in text: String) -> [(line: Int, text: Substring)] {
        var found: [(line: Int, range: Range<Int>)] = []
        var text = text
        text.withUTF8 { bytes in forEachLine(in: bytes) { found.append(($0, $1)) } }
        let utf8 = text.utf8
        let result = found.map { line, range in
            let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            return (line: line, text: Substring(utf8[start..<utf8.index(start, offsetBy: range.count)]))
        }
        return result
    }

    /// Calls `body` with the number and byte range of every non-blank, non-comment line,
    /// trimmed. One pass over the bytes and nothing allocated per line: a list of 1,000,000
    /// URLs spent a fifth of its start in splitting it into an array of slices first.
    static func forEachLine(in b: UnsafeBufferPointer<UInt8>, _ body: (Int, Range<Int>) throws -> Void) rethrows {
        var number = 0
        var lineStart = 0
        while lineStart <= b.count {
            number += 1
            var lineEnd = lineStart
            while lineEnd < b.count, b[lineEnd] != 0x0A { lineEnd += 1 }
            var start = lineStart, end = lineEnd
            while start < end, isBlank(b[start]) { start += 1 }
            while end > start, isBlank(b[end - 1]) { end -= 1 }
            if start < end, b[start] != UInt8(ascii: "#") { try body(number, start..<end) }
            lineStart = lineEnd + 1
        }
    }

    private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0B || b == 0x0C }

    /// Every URL of `text` (as text: checked here, parsed again when its task starts), or a
    /// usage error listing the first bad lines by number. With `seen`, a URL seen before (in
    /// this list, an earlier one or the command line) is left out and counted in `repeats`.
    static func parseURLs(in text: String, file: String, seen: inout FirstOccurrences, repeats: inout Int) throws(UsageError) -> [String] {
        var urls: [String] = []
        func keep(_ url: String) {
            if seen.isFirst(url) { urls.append(url) } else { repeats += 1 }
        }
        var bad: [String] = []
        var badCount = 0
        var text = text
        text.withUTF8 { b in
            // One count of the lines first (a byte scan): the URL array and `seen` are sized once.
            let lines = b.reduce(into: 1) { n, byte in if byte == 0x0A { n += 1 } }
            urls.reserveCapacity(lines)
            seen.reserve(lines)
            forEachLine(in: b) { n, range in
                let line = UnsafeBufferPointer(rebasing: b[range])
                // The common line needs no parser (`URLText.isPlainHTTP`): kept as it is.
                if URLText.isPlainHTTP(line) {
                    keep(String(decoding: line, as: UTF8.self))
                    return
                }
                do throws(UsageError) {
                    // Kept as the parsed URL's text (encoded once: the task parses it again), and
                    // a bad line is quoted only briefly (a file given by mistake, `-i /etc/shadow`,
                    // must not be echoed).
                    keep(try URLCheck.checkURL(String(decoding: line, as: UTF8.self), quoteLimit: 16).absoluteString)
                } catch {
                    badCount += 1
                    if bad.count < 10 { bad.append("line \(n): \(error.reason)") }
                }
            }
        }
        guard badCount == 0 else {
            let more = badCount > bad.count ? "; and \(badCount - bad.count) more" : ""
            throw UsageError("input file '\(file)' has \(badCount) bad line(s): " + bad.joined(separator: "; ") + more)
        }
        return urls
    }

    /// Every URL of `text`, repeats included (an upload list may mean them).
    static func parseURLs(in text: String, file: String) throws(UsageError) -> [String] {
        var none = FirstOccurrences(enabled: false)
        var repeats = 0
        return try parseURLs(in: text, file: file, seen: &none, repeats: &repeats)
    }
}
