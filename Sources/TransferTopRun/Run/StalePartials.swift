import Foundation
import TransferKit

/// Partial downloads in a directory that no running process holds.
package enum StalePartials {
    package struct Entry: Equatable {
        package var name: String
        package var finalName: String
        package var size: Int64
    }

    /// nil when the directory cannot be read. One `readdir`, then one open+flock per partial.
    package static func list(in dir: String) -> [Entry]? {
        var names: [String] = []
        guard DirectoryNames.forEach(in: dir, { name in
            // Partials are hidden (`.NAME.ttpart`): other names are not made into strings.
            if name.first == UInt8(ascii: ".") { names.append(String(decoding: name, as: UTF8.self)) }
            return true
        }) else { return nil }
        return names.sorted().compactMap { name -> Entry? in
            guard let final = PartialFileName.finalName(ofPartial: name) else { return nil }
            let path = dir + "/" + name
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
            // Held by a live download: not stale. (The lock is released when its process dies.)
            guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return nil }
            return Entry(name: name, finalName: final, size: Int64(st.st_size))
        }
    }

    /// The one line a run prints when its output directory holds partials of earlier runs.
    package static func notice(in dir: String) -> String? {
        guard let stale = list(in: dir), !stale.isEmpty else { return nil }
        return "\(stale.count) partial download(s) from an earlier run in \(dir) (the same command continues those it kept resume data for; 'transfertop clean \(dir)' lists them)"
    }
}
