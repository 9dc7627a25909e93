import Foundation

extension SessionPlan {
    /// Drops downloads of a URL already in this session (issue 9): two tasks writing one
    /// destination would race for it, and a list that names a URL twice means it once. Keeps
    /// the first occurrence; returns how many were dropped. Uploads and data tasks are kept
    /// (sending something twice can be meant).
    ///
    /// URLs are indexed by their hash, compared as text only when hashes meet, and the lists
    /// are rebuilt only when something repeats (issue 8: a `Set<String>` of a 1,000,000-line
    /// list and the filtered copies were 0.4 s before the first request, most of it retaining
    /// and releasing the strings).
    mutating func dropDuplicateDownloads() -> Int {
        let count = tasks.count
        func text(_ slot: Int) -> String { slot < count ? tasks[slot].url.absoluteString : downloadURLs[slot - count] }
        var firstWithHash = [Int: Int](minimumCapacity: count + downloadURLs.count)
        /// Further slots whose text differs but whose hash is the same (rare).
        var sameHash: [Int: [Int]] = [:]
        var repeated = Set<Int>()
        for slot in 0..<(count + downloadURLs.count) {
            guard slot >= count || tasks[slot].kind == .download else { continue }
            let url = text(slot)
            let hash = url.hashValue
            guard let first = firstWithHash[hash] else {
                firstWithHash[hash] = slot
                continue
            }
            if text(first) == url || sameHash[hash, default: []].contains(where: { text($0) == url }) {
                repeated.insert(slot)
            } else {
                sameHash[hash, default: []].append(slot)
            }
        }
        guard !repeated.isEmpty else { return 0 }
        tasks = tasks.enumerated().filter { !repeated.contains($0.offset) }.map(\.element)
        downloadURLs = downloadURLs.enumerated().filter { !repeated.contains($0.offset + count) }.map(\.element)
        return repeated.count
    }
}
