import Foundation

/// The names in a directory, read with `readdir`: `FileManager.contentsOfDirectory` builds
/// a URL and an array of strings on the way, half a million instructions for an empty output
/// directory at the start of every run.
package enum DirectoryNames {
    /// Calls `body` with each name's bytes (`.` and `..` included) until it returns false;
    /// false when the directory cannot be opened.
    @discardableResult
    package static func forEach(in directory: String, _ body: ([UInt8]) -> Bool) -> Bool {
        guard let dir = opendir(directory) else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if !body(name) { break }
        }
        return true
    }
}
