import Foundation

/// SHA-256 (FIPS 180-4) in Swift, for the short values TransferModel itself digests: the
/// resume-data envelope's check and the Vary values a cached response keeps. TransferModel
/// stays free of C this way (DECISIONS 181). Slow on large inputs (far below OpenSSL, and
/// worse unoptimised): files, segments and bodies are hashed by `SHA256` in the Digest module.
/// No digest here is a secret, so a plain, not constant-time, implementation is what is needed.
enum ModelSHA256 {
    /// The 32-byte digest of `data`.
    static func digest(_ data: Data) -> [UInt8] {
        let h = Hasher()
        data.withUnsafeBytes { h.update($0) }
        return h.finalize()
    }

    /// The digest as 64 lowercase hex digits.
    static func hex(_ data: Data) -> String { hex(digest(data)) }

    /// Any digest as lowercase hex digits.
    static func hex(_ digest: [UInt8]) -> String { HexDigits.lowercase(digest) }

    /// Incremental SHA-256.
    final class Hasher {
        private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
        /// The bytes of an unfinished 64-byte block.
        private var pending: [UInt8] = []
        private var length: UInt64 = 0
        private var finished = false

        init() { pending.reserveCapacity(64) }

        func update(_ bytes: UnsafeRawBufferPointer) {
            precondition(!finished, "SHA256.Hasher: update after finalize")
            guard bytes.count > 0 else { return }
            length &+= UInt64(bytes.count)
            var rest = bytes[...]
            if !pending.isEmpty {
                let take = min(64 - pending.count, rest.count)
                pending.append(contentsOf: rest.prefix(take))
                rest = rest.dropFirst(take)
                guard pending.count == 64 else { return }
                pending.withUnsafeBytes { compress(UnsafeRawBufferPointer(rebasing: $0[...])) }
                pending.removeAll(keepingCapacity: true)
            }
            let whole = rest.count / 64 * 64
            if whole > 0 {
                let blocks = UnsafeRawBufferPointer(rebasing: rest.prefix(whole))
                for offset in stride(from: 0, to: whole, by: 64) {
                    compress(UnsafeRawBufferPointer(rebasing: blocks[offset..<offset + 64]))
                }
            }
            pending.append(contentsOf: rest.dropFirst(whole))
        }

        /// The 32-byte digest. Call once.
        func finalize() -> [UInt8] {
            precondition(!finished, "SHA256.Hasher: finalize called twice")
            let bits = length &* 8
            var tail = pending
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            tail.withUnsafeBytes { all in
                for offset in stride(from: 0, to: all.count, by: 64) {
                    compress(UnsafeRawBufferPointer(rebasing: all[offset..<offset + 64]))
                }
            }
            finished = true
            let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
            return words.flatMap { w in [UInt8(w >> 24), UInt8(truncatingIfNeeded: w >> 16), UInt8(truncatingIfNeeded: w >> 8), UInt8(truncatingIfNeeded: w)] }
        }

        func finalizeHex() -> String { ModelSHA256.hex(finalize()) }

        /// One 64-byte block into the state (FIPS 180-4 6.2.2).
        private func compress(_ block: UnsafeRawBufferPointer) {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                for t in 0..<16 {
                    let i = 4 * t
                    w[t] = UInt32(block[i]) << 24 | UInt32(block[i + 1]) << 16 | UInt32(block[i + 2]) << 8 | UInt32(block[i + 3])
                }
                for t in 16..<64 {
                    let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                    let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                    w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, h) = state
                for t in 0..<64 {
                    let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ Self.k[t] &+ w[t]
                    let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
                state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                         state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
            }
        }

        @inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }

        private static let k: [UInt32] = [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
            0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
            0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
            0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
            0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
            0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
        ]
    }
}
