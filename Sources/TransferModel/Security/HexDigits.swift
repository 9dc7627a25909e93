/// Bytes as lowercase hex digits, for digests (`ModelSHA256`, and Digest's SHA-256 and MD5).
public enum HexDigits {
    public static func lowercase(_ bytes: [UInt8]) -> String {
        // One buffer, no String per byte (it was most of a journal key's cost), and digits by
        // arithmetic: a table made per call was a third of the call.
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = digit(byte >> 4)
                out[2 * i + 1] = digit(byte & 0xF)
            }
            return bytes.count * 2
        }
    }

    /// The lowercase hex digit (ASCII) of a value below 16.
    @inline(__always)
    public static func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
}
