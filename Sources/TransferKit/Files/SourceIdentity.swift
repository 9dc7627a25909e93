import Foundation

/// Which version of a file an upload reads: device, inode, size, modification time and
/// status-change time. The change time is the one a user cannot set back (`touch -d` restores
/// only the modification time), so an edit in place with its mtime restored is still a
/// different file. `SegmentedUpload` compares it at the end of a run; the CLI's record of
/// stored segments keeps it, so a rerun knows whether the record is for this file.
public struct SourceIdentity: Codable, Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modified: String
    public var changed: String

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = "\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        changed = "\(st.st_ctim.tv_sec).\(st.st_ctim.tv_nsec)"
    }

    /// The file at `path` now; nil when it cannot be stat'ed (errno says why).
    public init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        self.init(st)
    }

    /// What differs in `now`, for a message; nil when it is the same file, unchanged.
    public func change(to now: SourceIdentity) -> String? {
        if device != now.device || inode != now.inode { return "another file is at its path" }
        if size != now.size { return "its size changed" }
        if modified != now.modified { return "its modification time changed" }
        if changed != now.changed { return "it was written or its attributes changed" }
        return nil
    }
}
