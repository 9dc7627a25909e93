import Foundation
import TransferKit

extension Preflight {
    /// `--netrc-file` is read by libcurl for every request: it must be a regular file (a pipe
    /// or FIFO would be empty, or block, for all but the first), and its syntax is checked now
    /// so a mistake names its line before any transfer instead of failing each task with
    /// "the file could not be opened". The file is stat'ed before it is opened: a FIFO is
    /// never opened here.
    static func checkNetrc(_ netrc: NetrcUse?) throws(UsageError) {
        guard let path = netrc?.file else { return }
        let shown = SafeQuote.quote(path)
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFDIR else { throw UsageError("cannot read netrc file '\(shown)'") }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw UsageError("netrc file '\(shown)' is not a regular file (it is read again for every request)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw UsageError("cannot read netrc file '\(shown)'") }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() ?? Data() else { throw UsageError("cannot read netrc file '\(shown)'") }
        if let (line, problem) = NetrcSyntax.firstProblem(data) {
            throw UsageError("netrc file '\(shown)', line \(line): \(problem)")
        }
    }
}

/// The netrc syntax libcurl reads (docs/cli.md, `--netrc-file`): words separated by blanks;
/// a word in double quotes may hold blanks and `\"` or `\\`, and must close on its line
/// (libcurl 7.88 fails every request of a file where one does not, "netrc parser error");
/// `macdef` starts a macro whose body runs to the next empty line and is not read. Pure.
enum NetrcSyntax {
    /// The 1-based line and a description of the first mistake, nil for a file libcurl reads.
    static func firstProblem(_ data: Data) -> (Int, String)? {
        var inMacro = false
        for (index, bytes) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            var line = Array(bytes)
            if line.last == 0x0D { line.removeLast() }
            if inMacro {
                if line.isEmpty { inMacro = false }
                continue
            }
            // A comment is skipped before its words are read, quotes and all, as libcurl does.
            if line.first(where: { $0 != 0x20 && $0 != 0x09 }) == UInt8(ascii: "#") { continue }
            guard let words = words(line) else { return (index + 1, "a quoted value has no closing quote on its line") }
            if words.contains(where: { $0.lowercased() == "macdef" }) { inMacro = true }
        }
        return nil
    }

    /// The words of one line, nil when a quoted word is not closed. Bytes that are not UTF-8
    /// are kept as they are (a password may be in another encoding).
    static func words(_ line: [UInt8]) -> [String]? {
        var out: [String] = []
        var i = 0
        func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
        while i < line.count {
            while i < line.count, blank(line[i]) { i += 1 }
            guard i < line.count else { break }
            var word: [UInt8] = []
            if line[i] == UInt8(ascii: "\"") {
                i += 1
                var closed = false
                while i < line.count {
                    let b = line[i]
                    i += 1
                    if b == UInt8(ascii: "\\"), i < line.count { word.append(line[i]); i += 1; continue }
                    if b == UInt8(ascii: "\"") { closed = true; break }
                    word.append(b)
                }
                guard closed else { return nil }
            } else {
                while i < line.count, !blank(line[i]) { word.append(line[i]); i += 1 }
            }
            out.append(String(decoding: word, as: UTF8.self))
        }
        return out
    }
}
