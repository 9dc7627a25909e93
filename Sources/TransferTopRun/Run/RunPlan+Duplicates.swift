import Foundation

extension SessionPlan {
    /// Drops downloads of a URL already in this session: two tasks writing one
    /// destination would race for it, and a list that names a URL twice means it once. Keeps
    /// the first occurrence; returns how many were dropped. Uploads and data tasks are kept
    /// (sending something twice can be meant). `seen` goes on to the list read next
    /// (`InputFile.parseURLs`), which drops its repeats as it reads them.
    mutating func dropDuplicateDownloads(seen: inout FirstOccurrences) -> Int {
        var dropped = 0
        tasks = tasks.filter { t in
            guard t.kind == .download, !seen.isFirst(t.url.absoluteString) else { return true }
            dropped += 1
            return false
        }
        downloadURLs = downloadURLs.filter { u in
            guard !seen.isFirst(u) else { return true }
            dropped += 1
            return false
        }
        return dropped
    }
}

/// Which strings were seen before, by their hash values: a `Set<String>` of 1,000,000 URLs
/// was half of a long list's time to its first request (every probe of its buckets
/// compared whole strings). Integer keys compare in one instruction; strings are compared only
/// when two hashes meet. Asked while each line's bytes are still in the cache (the list's
/// reader asks as it goes), not in a second pass over a million scattered strings.
struct FirstOccurrences {
    /// How strings are hashed: their own hash, or one value for all (a test's way to make every
    /// string collide and exercise the exact check).
    enum Hashing { case standard, constant(Int) }

    /// The first string of each hash value.
    private var first: [Int: String] = [:]
    /// Strings whose hash an earlier, different string has: rare, checked exactly.
    private var collided = Set<String>()
    private let hashing: Hashing
    /// Off: every string counts as new (an upload list may mean its repeats).
    let isEnabled: Bool

    init(hashing: Hashing = .standard, enabled: Bool = true) {
        self.hashing = hashing
        isEnabled = enabled
    }

    /// Room for `count` strings without growing on the way (growing rehashed 1,000,000 keys).
    mutating func reserve(_ count: Int) { if isEnabled { first.reserveCapacity(count) } }

    /// Whether `s` is the first of its kind; remembers it.
    mutating func isFirst(_ s: String) -> Bool {
        guard isEnabled else { return true }
        let h: Int
        switch hashing {
        case .standard: h = s.hashValue
        case .constant(let value): h = value
        }
        guard let earlier = first[h] else {
            first[h] = s
            return true
        }
        if earlier == s { return false }
        return collided.insert(s).inserted
    }
}
