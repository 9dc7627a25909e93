import TransferModel

/// Deterministic response bodies.
///
/// Byte `i` of the body for `seed` is `pattern(seed)[i % 65521]`, where `pattern(seed)` is 65,521
/// (a prime) pseudo-random bytes from a xorshift generator seeded with `seed`. Bytes at nearby
/// offsets differ, a body shifted by any amount that is not a multiple of 65,521 no longer
/// matches, and two seeds give unrelated content, so a spliced or shifted download is detectable.
/// Bodies are built by copying slices of the cached pattern, so 64 MiB takes milliseconds.
enum BodyPattern {
    /// The pattern period (a prime).
    static let period = 65521

    private static let cache = Locked<[UInt8: [UInt8]]>([:])

    /// The 65,521-byte pattern for `seed` (computed once per seed, then cached).
    static func pattern(seed: UInt8) -> [UInt8] {
        if let cached = cache.withLock({ $0[seed] }) { return cached }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(seed) &* 0xBF58_476D_1CE4_E5B9
        var bytes = [UInt8](repeating: 0, count: period)
        bytes.withUnsafeMutableBufferPointer { out in
            for i in 0..<period {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                out[i] = UInt8(truncatingIfNeeded: state >> 32)
            }
        }
        cache.withLock { $0[seed] = bytes }
        return bytes
    }

    /// Copies body bytes `[offset, offset+count)` for `seed` into `destination`.
    static func fill(_ destination: UnsafeMutableRawBufferPointer, offset: Int, seed: UInt8) {
        let pattern = pattern(seed: seed)
        pattern.withUnsafeBytes { source in
            var written = 0
            var position = offset % period
            let count = destination.count
            while written < count {
                let take = min(count - written, period - position)
                (destination.baseAddress! + written).copyMemory(from: source.baseAddress! + position, byteCount: take)
                written += take
                position = 0
            }
        }
    }
}
