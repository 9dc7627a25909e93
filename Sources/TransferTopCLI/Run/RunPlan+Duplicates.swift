import Foundation

extension SessionPlan {
    /// Drops downloads of a URL already in this session (issue 9): two tasks writing one
    /// destination would race for it, and a list that names a URL twice means it once. Keeps
    /// the first occurrence; returns how many were dropped. Uploads and data tasks are kept
    /// (sending something twice can be meant).
    mutating func dropDuplicateDownloads() -> Int {
        var seen = Set<String>(minimumCapacity: tasks.count + downloadURLs.count)
        var dropped = 0
        tasks = tasks.filter { t in
            guard t.kind == .download else { return true }
            if seen.insert(t.url.absoluteString).inserted { return true }
            dropped += 1
            return false
        }
        downloadURLs = downloadURLs.filter { u in
            if seen.insert(u).inserted { return true }
            dropped += 1
            return false
        }
        return dropped
    }
}
