/// Content codings the loopback server can send (`/gzip`, `/deflate`, `/brotli`, `/zstd`,
/// `/encoded/CODING`), written in plain Swift so the server links no compression library.
///
/// Each encoder writes a valid stream of its format whose blocks are stored uncompressed
/// (deflate stored blocks, brotli uncompressed meta-blocks, zstd raw blocks). That is what a
/// client must decode — real framing, real checksums — and the encoded body is a few bytes
/// *larger* than the original, so a test can tell decoded from raw bytes by length as well as
/// by content. `gzipFixture` adds one body compressed for real by GNU gzip, so Huffman-coded
/// input is exercised too.
enum ContentCoding: String, CaseIterable, Sendable {
    case gzip, deflate, br, zstd

    /// The coding for a route name: httpbin's `/brotli` is `br`.
    init?(routeName: String) {
        if routeName == "brotli" { self = .br; return }
        self.init(rawValue: routeName)
    }

    func encode(_ data: [UInt8]) -> [UInt8] {
        switch self {
        case .gzip: return Self.gzip(data)
        case .deflate: return Self.zlib(data)
        case .br: return Self.brotli(data)
        case .zstd: return Self.zstd(data)
        }
    }

    // MARK: deflate family (RFC 1951 stored blocks, RFC 1950 zlib, RFC 1952 gzip)

    static func storedDeflate(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + data.count / 65535 * 5 + 5)
        var start = 0
        repeat {
            let n = min(65535, data.count - start)
            let last = start + n == data.count
            out.append(last ? 1 : 0) // BFINAL, BTYPE 00 (stored), then padding to the byte
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[start..<start + n]
            start += n
        } while start < data.count
        return out
    }

    /// HTTP's `deflate` is the zlib format (RFC 9110 §8.4.1.2), not raw deflate.
    static func zlib(_ data: [UInt8]) -> [UInt8] {
        let adler = adler32(data)
        return [0x78, 0x01] + storedDeflate(data)
            + [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
    }

    static func gzip(_ data: [UInt8]) -> [UInt8] {
        let crc = crc32(data)
        let size = UInt32(truncatingIfNeeded: data.count)
        // ID1 ID2 CM=8 FLG=0 MTIME=0 XFL=0 OS=255 (unknown)
        return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255] + storedDeflate(data) + littleEndian(crc) + littleEndian(size)
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in data { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    private static func littleEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
    }

    // MARK: brotli (RFC 7932): WBITS 16, uncompressed meta-blocks of at most 65,536 bytes

    static func brotli(_ data: [UInt8]) -> [UInt8] {
        var bits = BitWriter()
        bits.write(0, count: 1) // WBITS = 16
        var start = 0
        while start < data.count {
            let n = min(65536, data.count - start)
            bits.write(0, count: 1) // ISLAST = 0 (an uncompressed meta-block is never last)
            bits.write(0, count: 2) // MNIBBLES = 4
            bits.write(UInt32(n - 1), count: 16) // MLEN - 1
            bits.write(1, count: 1) // ISUNCOMPRESSED
            bits.padToByte()
            bits.bytes += data[start..<start + n]
            start += n
        }
        bits.write(1, count: 1) // ISLAST
        bits.write(1, count: 1) // ISLASTEMPTY
        bits.padToByte()
        return bits.bytes
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        private var pending: UInt32 = 0
        private var pendingCount = 0

        /// Appends the low `count` bits of `value`, least significant first (brotli's order).
        mutating func write(_ value: UInt32, count: Int) {
            for i in 0..<count {
                pending |= ((value >> UInt32(i)) & 1) << UInt32(pendingCount)
                pendingCount += 1
                if pendingCount == 8 { flush() }
            }
        }

        mutating func padToByte() { if pendingCount > 0 { flush() } }

        private mutating func flush() {
            bytes.append(UInt8(pending))
            pending = 0
            pendingCount = 0
        }
    }

    // MARK: zstd (RFC 8878): one frame, 128 KiB window, raw blocks

    static func zstd(_ data: [UInt8]) -> [UInt8] {
        // Magic, frame header descriptor 0 (no content size, no checksum, not single segment),
        // window descriptor exponent 7 (2^17 = 128 KiB, the largest block size).
        var out: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3]
        var start = 0
        repeat {
            let n = min(128 * 1024, data.count - start)
            let last: UInt32 = start + n == data.count ? 1 : 0
            let header = UInt32(n) << 3 | 0 << 1 | last // Block_Size, Block_Type raw, Last_Block
            out += [UInt8(header & 0xFF), UInt8((header >> 8) & 0xFF), UInt8((header >> 16) & 0xFF)]
            out += data[start..<start + n]
            start += n
        } while start < data.count
        return out
    }

    // MARK: a body compressed for real

    /// `gzipFixtureText` compressed by `gzip -9 -n` (GNU gzip 1.12).
    static let gzipFixture: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x9d, 0xd2, 0x4b, 0x12, 0x01, 0x41,
        0x10, 0x06, 0xe1, 0xbd, 0x53, 0xd4, 0x11, 0xba, 0xea, 0xf7, 0xbe, 0x0d, 0xa3, 0x31, 0xb4, 0x69,
        0x86, 0xf1, 0x3a, 0xbd, 0x08, 0x4e, 0x20, 0xd7, 0x19, 0xb9, 0xfb, 0x4a, 0xdb, 0x65, 0x4b, 0x29,
        0x2d, 0xed, 0xb6, 0xcf, 0x76, 0x19, 0xda, 0xe6, 0x68, 0xeb, 0xbe, 0x3e, 0x3a, 0xdb, 0xd6, 0xa7,
        0x1d, 0x86, 0xd3, 0xf9, 0x6a, 0xf5, 0x9e, 0xfb, 0x6f, 0x2e, 0xab, 0xf7, 0xcb, 0x36, 0x75, 0x37,
        0x2a, 0xbf, 0xcb, 0xd1, 0x15, 0xe8, 0x12, 0xba, 0xc6, 0xe8, 0x9a, 0xa0, 0x6b, 0x8a, 0xae, 0x19,
        0xba, 0xe6, 0xe8, 0x5a, 0x90, 0xcb, 0x91, 0x0d, 0x47, 0x36, 0x1c, 0xd9, 0x70, 0x64, 0xc3, 0x91,
        0x0d, 0x47, 0x36, 0x1c, 0xd9, 0x70, 0x64, 0xc3, 0x91, 0x0d, 0x47, 0x36, 0x02, 0xd9, 0x08, 0x64,
        0x23, 0x90, 0x8d, 0x40, 0x36, 0x02, 0xd9, 0x08, 0x64, 0x23, 0x90, 0x8d, 0x40, 0x36, 0x02, 0xd9,
        0x08, 0x64, 0x43, 0xc8, 0x86, 0x90, 0x0d, 0x21, 0x1b, 0x42, 0x36, 0x84, 0x6c, 0x08, 0xd9, 0x10,
        0xb2, 0x21, 0x64, 0x43, 0xc8, 0x86, 0xfe, 0xb4, 0xf1, 0x01, 0xe1, 0x55, 0x38, 0x9e, 0x70, 0x08,
        0x00, 0x00,
    ]
    /// 40 numbered lines of "the quick brown fox" (2,160 bytes; 178 when gzipped).
    static let gzipFixtureText: String = (0..<40).map { i in
        let n = String(i)
        return "line \(String(repeating: "0", count: 3 - n.count))\(n): the quick brown fox jumps over the lazy dog\n"
    }.joined()
}

extension LoopbackServer {
    /// The text behind `/gzip?fixture=1`, for tests that check the decoded body.
    public static var gzipFixtureText: String { ContentCoding.gzipFixtureText }

    /// What `/encoded/CODING?size=N&seed=S` sends on the wire (nil for an unknown coding),
    /// so a test can compare raw bytes kept by a client that did not decode.
    public static func encodedBody(_ coding: String, size: Int, seed: UInt8 = 0) -> [UInt8]? {
        ContentCoding(routeName: coding)?.encode(body(size: size, seed: seed))
    }
}
