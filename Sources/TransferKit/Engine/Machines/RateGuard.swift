/// A transfer's receive limit as a token bucket: a chunk is taken while the bucket is not
/// empty (it may go into debt by one chunk), refused while it is (the write callback pauses
/// the transfer, libcurl keeps the chunk), and the engine unpauses once it has refilled.
/// libcurl 7.88's `CURLOPT_MAX_RECV_SPEED_LARGE` alone let a transfer read whatever its socket
/// held in one `curl_multi_perform` (1.6 MB in 0.3 s at a 200 kB/s limit, DECISIONS 176);
/// pausing holds the average and also pauses one HTTP/2 stream without its siblings. Pure:
/// the clock reading is passed in (nanoseconds).
struct RateGuard: Equatable {
    /// Bytes per second (0: none).
    private(set) var limit: Int64 = 0
    private var tokens: Double = 0
    private var refilledAt: UInt64 = 0

    /// At most a quarter second's worth (and 16 KiB) is saved up while nothing arrives, so a
    /// transfer that waited on its server does not then burst past its limit.
    var capacity: Double { Swift.max(Double(limit) / 4, 16_384) }

    /// A new limit keeps the debt (a share re-divided each time a transfer starts or ends
    /// would otherwise write off up to a receive buffer per transfer each time) and drops
    /// what was saved up.
    mutating func set(_ limit: Int64, now: UInt64) {
        self.limit = Swift.max(0, limit)
        tokens = Swift.min(tokens, 0)
        refilledAt = now
    }

    /// A chunk of `count` bytes arrived: true to take it, false to pause.
    mutating func admits(_ count: Int, now: UInt64) -> Bool {
        guard limit > 0 else { return true }
        refill(now)
        guard tokens > 0 else { return false }
        tokens -= Double(count)
        return true
    }

    /// Whether a transfer paused by `admits` may go on.
    mutating func mayGoOn(now: UInt64) -> Bool {
        guard limit > 0 else { return true }
        refill(now)
        return tokens > 0
    }

    private mutating func refill(_ now: UInt64) {
        guard now > refilledAt else { return }
        tokens = Swift.min(capacity, tokens + Double(limit) * Double(now - refilledAt) / 1e9)
        refilledAt = now
    }
}
