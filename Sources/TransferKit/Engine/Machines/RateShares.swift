/// How a session's bandwidth limit is divided among its transfers, and which handles need a
/// new `CURLOPT_MAX_RECV_SPEED_LARGE`/`MAX_SEND_SPEED_LARGE`. libcurl 7.88 limits one easy
/// handle at a time and has no limit for a multi, so a session limit is shared out here:
/// max-min fair (a transfer whose own limit is below its equal share keeps its own, and what
/// it leaves is divided among the rest), re-divided whenever a transfer starts, connects, is
/// suspended or ends (DECISIONS 176). Pure: the engine passes what it has, performs the
/// changes returned.
struct RateShares {
    /// One transfer in the multi, as the engine sees it.
    struct Sharer: Equatable {
        enum Stage: Equatable {
            /// Has a connection and may move bytes: takes a share.
            case moving
            /// In the multi without a connection yet (connecting, or waiting in libcurl's
            /// per-host queue): takes no share, so waiting handles do not waste the limit,
            /// but gets the share it will have once it connects, so its first bytes are
            /// already limited.
            case connecting
            /// Suspended: moves nothing, needs no share.
            case idle
        }

        var stage: Stage
        /// The task's own limit in bytes per second (0: none).
        var own: Int64
        /// What its handle has now (0: none).
        var applied: Int64
    }

    /// Bytes per second for the whole session (0: none).
    var sessionLimit: Int64 = 0

    /// Each sharer's limit (0: unlimited), in the order given.
    func limits(for sharers: [Sharer]) -> [Int64] {
        guard sessionLimit > 0 else { return sharers.map(\.own) }
        let moving = sharers.indices.filter { sharers[$0].stage == .moving }
        var result = sharers.map(\.own)
        let shares = Self.divide(sessionLimit, among: moving.map { sharers[$0].own })
        for (i, share) in zip(moving, shares) { result[i] = share }
        // A connecting transfer is capped at the share it would have as one more mover.
        let provisional = Self.divide(sessionLimit, among: moving.map { sharers[$0].own } + [0]).last ?? sessionLimit
        for i in sharers.indices where sharers[i].stage == .connecting {
            result[i] = Self.tighter(sharers[i].own, provisional)
        }
        return result
    }

    /// The sharers whose handle must change, with the limit to set.
    func changes(for sharers: [Sharer]) -> [(index: Int, limit: Int64)] {
        zip(sharers.indices, limits(for: sharers)).compactMap { i, limit in
            sharers[i].stage == .idle || sharers[i].applied == limit ? nil : (i, limit)
        }
    }

    /// Max-min fair division of `total` among transfers with their own limits (0: none).
    /// Every share is at least 1 byte per second: 0 would mean unlimited to libcurl.
    static func divide(_ total: Int64, among own: [Int64]) -> [Int64] {
        var shares = [Int64](repeating: 0, count: own.count)
        var open = Set(own.indices)
        var left = total
        while !open.isEmpty {
            let fair = left / Int64(open.count)
            let capped = open.filter { own[$0] > 0 && own[$0] <= fair }
            if capped.isEmpty {
                for i in open { shares[i] = max(1, fair) }
                break
            }
            for i in capped {
                shares[i] = own[i]
                left -= own[i]
                open.remove(i)
            }
        }
        return shares
    }

    /// The smaller of two limits where 0 means none.
    static func tighter(_ a: Int64, _ b: Int64) -> Int64 {
        if a == 0 { return b }
        if b == 0 { return a }
        return min(a, b)
    }
}
