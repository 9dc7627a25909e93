import CCurl
import Foundation
import TransferModel

/// The decoded bytes of a `data:` URL as a file libcurl's file protocol reads
/// (`file:///proc/self/fd/N`), so a data: task takes the same path as every other task:
/// progress, metrics, sinks, delegate callbacks (DECISIONS 96). The file has no name
/// (`O_TMPFILE`, or a temporary unlinked at once) and is private to the user; it lives as
/// long as the transfer's hop.
final class DataURLSource {
    let fd: Int32
    let dataURL: DataURL

    init(_ dataURL: DataURL) throws(TransferError) {
        self.dataURL = dataURL
        var fd = tk_open_unnamed(NSTemporaryDirectory(), 0o600)
        if fd < 0 {
            // No unnamed files on this file system: a named one, unlinked before use.
            var template = Array((NSTemporaryDirectory() + "/transferkit-data-XXXXXX").utf8CString)
            fd = mkstemp(&template)
            if fd >= 0 { unlink(template) }
        }
        guard fd >= 0 else {
            throw TransferError(.cannotCreateFile, "cannot hold the data: URL's bytes: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        let ok = dataURL.data.withUnsafeBytes { bytes -> Bool in
            var done = 0
            while done < bytes.count {
                let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        guard ok else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TransferError(.cannotWriteToFile, "cannot hold the data: URL's bytes: \(reason)")
        }
    }

    deinit { close(fd) }

    /// What libcurl is given instead of the data: URL.
    var curlURL: String { "file:///proc/self/fd/\(fd)" }
}
