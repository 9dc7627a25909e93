import Foundation

/// What kind of thing a path names, by stat (which never blocks, where an open of a FIFO with
/// no writer does).
enum FileKind: Equatable, CustomStringConvertible {
    case regular, directory, fifo, socket, device

    /// nil when nothing is at `path` (or it cannot be stat'ed).
    static func of(_ path: String) -> FileKind? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFSOCK: return .socket
        default: return .device
        }
    }

    /// Whether an upload of it is sent as a stream: it has no size to send up front, and its
    /// open or reads may block, so it is read on a thread of its own.
    static func isStream(_ path: String) -> Bool {
        switch of(path) {
        case .fifo?, .socket?, .device?: return true
        default: return false
        }
    }

    /// For messages: "'x' is a FIFO".
    var description: String {
        switch self {
        case .regular: return "a regular file"
        case .directory: return "a directory"
        case .fifo: return "a FIFO"
        case .socket: return "a socket"
        case .device: return "a device"
        }
    }
}
