// A small incremental SHA-256 (FIPS 180-4) so `/echo` can hash uploads of any size in constant
// memory. swift-crypto is not a dependency of this package, so it is implemented here.

/// Incremental SHA-256 in portable Swift (the fallback; slow in debug builds, ~5 MB/s). Feed bytes with `update`, read the digest with `finalizeHex()`.
struct SwiftSHA256 {
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

    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
    )
    private var block = [UInt8](repeating: 0, count: 64)
    private var blockCount = 0
    private var w = [UInt32](repeating: 0, count: 64)
    private(set) var length: Int64 = 0

    init() {}

    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var array: [UInt8] = []
        let done: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            self.update(UnsafeRawBufferPointer(buffer))
            return true
        }
        if done == nil {
            array = Array(bytes)
            array.withUnsafeBytes { self.update($0) }
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length += Int64(bytes.count)
        var index = 0
        let count = bytes.count
        if blockCount > 0 {
            let take = min(64 - blockCount, count)
            for i in 0..<take { block[blockCount + i] = bytes[i] }
            blockCount += take
            index = take
            if blockCount == 64 {
                block.withUnsafeBytes { compress($0.baseAddress!) }
                blockCount = 0
            }
        }
        while count - index >= 64 {
            compress(bytes.baseAddress! + index)
            index += 64
        }
        if index < count {
            for i in index..<count { block[i - index] = bytes[i] }
            blockCount = count - index
        }
    }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x >> n) | (x << (32 &- n))
    }

    private mutating func compress(_ p: UnsafeRawPointer) {
        w.withUnsafeMutableBufferPointer { w in
            Self.k.withUnsafeBufferPointer { k in
                for t in 0..<16 {
                    let b = p + t &* 4
                    w[t] = UInt32(b.load(as: UInt8.self)) << 24 | UInt32(b.load(fromByteOffset: 1, as: UInt8.self)) << 16
                        | UInt32(b.load(fromByteOffset: 2, as: UInt8.self)) << 8 | UInt32(b.load(fromByteOffset: 3, as: UInt8.self))
                }
                for t in 16..<64 {
                    let x = w[t &- 15], y = w[t &- 2]
                    let s0 = Self.rotr(x, 7) ^ Self.rotr(x, 18) ^ (x >> 3)
                    let s1 = Self.rotr(y, 17) ^ Self.rotr(y, 19) ^ (y >> 10)
                    w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                }
                var (a, b, c, d, e, f, g, hh) = h
                for t in 0..<64 {
                    let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ ch &+ k[t] &+ w[t]
                    let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ maj
                    hh = g; g = f; f = e; e = d &+ t1
                    d = c; c = b; b = a; a = t1 &+ t2
                }
                h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
            }
        }
    }

    /// Pads, finishes and returns the digest as 64 lowercase hex digits. Call once.
    mutating func finalizeHex() -> String {
        let bitLength = UInt64(length) &* 8
        var pad: [UInt8] = [0x80]
        let used = (blockCount + 1) % 64
        pad += [UInt8](repeating: 0, count: used <= 56 ? 56 - used : 120 - used)
        for i in (0..<8).reversed() { pad.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        let savedLength = length
        pad.withUnsafeBytes { update($0) }
        length = savedLength
        let words = [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7]
        let hex: [Character] = Array("0123456789abcdef")
        var out = ""
        out.reserveCapacity(64)
        for word in words {
            for shift in stride(from: 28, through: 0, by: -4) {
                out.append(hex[Int((word >> UInt32(shift)) & 0xf)])
            }
        }
        return out
    }
}
