import Foundation
import TransferModel

/// A text file a user names (`-i`, `--job`; `-` is standard input), read whole before the run.
/// A pipe, a FIFO or `/dev/null` is read like a file (`-i <(generator)`): a FIFO waits for its
/// writer here, before any signal handling is set up, so Ctrl-C or SIGTERM still end the
/// process at once. Bytes that are not UTF-8 are a usage error naming the first such line.
package enum TextFile {
    /// `what` names the file in messages: "input file", "job file".
    package static func read(_ file: String, _ what: String) throws(UsageError) -> String {
        let shown = SafeQuote.quote(file)
        let data: [UInt8]
        if file == "-" {
            data = try bounded(STDIN_FILENO, what, shown)
        } else {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDir), isDir.boolValue {
                throw UsageError("cannot read \(what) '\(shown)': it is a directory")
            }
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw UsageError("cannot read \(what) '\(shown)': \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            data = try bounded(fd, what, shown)
        }
        if let text = String(validating: data, as: UTF8.self) { return text }
        throw UsageError("\(what) '\(shown)': line \(firstLineNotUTF8(data)) is not UTF-8 text (the file must be UTF-8)")
    }

    /// The most a pipe or a device may give, and any one line of it: a device that never ends
    /// (`-i /dev/zero`) stops at a limit with an error instead of filling memory. A regular
    /// file has an end, and is read whole (a browser's HAR keeps a body on one line).
    static let maxBytes = 512 << 20
    static let maxLineBytes = 1 << 20

    /// Everything `fd` gives until its end, within the limits.
    static func bounded(_ fd: Int32, _ what: String, _ shown: String) throws(UsageError) -> [UInt8] {
        var st = stat()
        let regular = fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
        var data: [UInt8] = []
        if regular { data.reserveCapacity(Int(clamping: st.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var lineBytes = 0  // since the last line feed, counted a chunk at a time
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw UsageError("cannot read \(what) '\(shown)': \(String(cString: strerror(errno)))")
            }
            if n == 0 { return data }
            if regular {
                data += chunk[..<n]
                continue
            }
            if let feed = chunk[..<n].lastIndex(of: 0x0A) { lineBytes = n - feed - 1 } else { lineBytes += n }
            data += chunk[..<n]
            if lineBytes > maxLineBytes {
                let line = data.count { $0 == 0x0A } + 1
                throw UsageError("\(what) '\(shown)': line \(line) is longer than 1 MiB")
            }
            if data.count > maxBytes { throw UsageError("\(what) '\(shown)' is larger than 512 MiB") }
        }
    }

    /// The 1-based number of the first line whose bytes are not valid UTF-8.
    static func firstLineNotUTF8(_ data: [UInt8]) -> Int {
        var number = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if String(validating: line, as: UTF8.self) == nil { return number }
        }
        return number
    }
}
