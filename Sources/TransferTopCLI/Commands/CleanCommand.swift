import Foundation
import TransferKit

/// `transfertop clean [DIR] [--yes]` (issue 8): partial downloads (`.NAME.ttpart`) left in
/// DIR by a run that was killed. A partial that a running transfertop is writing is locked
/// (`flock`) and never listed. Dry run by default; `--yes` deletes.
enum CleanCommand {
    static func run(directory: String?, delete: Bool) -> Int32 {
        let dir = directory ?? FileManager.default.currentDirectoryPath
        guard let stale = StalePartials.list(in: dir) else {
            Output.shared.error("transfertop: cannot read directory '\(dir)'")
            return 1
        }
        for p in stale {
            let what = delete ? (unlink(dir + "/" + p.name) == 0 ? "deleted" : "could not delete") : "stale"
            Output.shared.line("\(what) \(dir)/\(p.name)  (\(p.size) bytes, for \(p.finalName))")
        }
        let total = stale.reduce(Int64(0)) { $0 + $1.size }
        if stale.isEmpty {
            Output.shared.line("no stale partial downloads in \(dir)")
        } else if !delete {
            Output.shared.line("\(stale.count) stale partial download(s), \(total) bytes; 'transfertop clean \(dir) --yes' deletes them")
        }
        return 0
    }
}

/// Partial downloads in a directory that no running process holds.
enum StalePartials {
    struct Entry: Equatable {
        var name: String
        var finalName: String
        var size: Int64
    }

    /// nil when the directory cannot be read. One `readdir`, then one open+flock per partial.
    static func list(in dir: String) -> [Entry]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return nil }
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
    static func notice(in dir: String) -> String? {
        guard let stale = list(in: dir), !stale.isEmpty else { return nil }
        return "\(stale.count) partial download(s) from an earlier run in \(dir) (the same command continues those it kept resume data for; 'transfertop clean \(dir)' lists them)"
    }
}
