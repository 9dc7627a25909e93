import Foundation

/// What kind of thing a path names, by stat (which never blocks, where an open of a FIFO does).
enum FileKind {
    static let fifo = "a FIFO", socket = "a socket", device = "a device", directory = "a directory"

    /// nil for a regular file or a path that does not exist; else what it is, for a message.
    static func notRegular(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: return fifo
        case S_IFSOCK: return socket
        case S_IFDIR: return directory
        default: return device
        }
    }
}

/// What kind of thing an upload path names.
enum UploadSource {
    /// Whether `path` exists and is not a regular file or a directory (a FIFO, a device, a
    /// socket): it has no size to send up front and its open or read may block, so it is sent
    /// as a stream.
    static func isStream(_ path: String) -> Bool {
        guard let kind = FileKind.notRegular(path) else { return false }
        return kind != FileKind.directory
    }
}
