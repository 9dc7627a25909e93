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
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDir), isDir.boolValue {
                throw UsageError("cannot read \(what) '\(shown)': it is a directory")
            }
            guard let handle = FileHandle(forReadingAtPath: file) else {
                throw UsageError("cannot read \(what) '\(shown)': \(String(cString: strerror(errno)))")
            }
            defer { try? handle.close() }
            do { data = try handle.readToEnd() ?? Data() } catch {
                throw UsageError("cannot read \(what) '\(shown)': \(error.localizedDescription)")
            }
        }
        if let text = String(validating: data, as: UTF8.self) { return text }
        throw UsageError("\(what) '\(shown)': line \(firstLineNotUTF8(data)) is not UTF-8 text (the file must be UTF-8)")
    }

    /// The 1-based number of the first line whose bytes are not valid UTF-8.
    static func firstLineNotUTF8(_ data: Data) -> Int {
        var number = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if String(validating: line, as: UTF8.self) == nil { return number }
        }
        return number
    }
}
