/// Bytes as lowercase hex digits, for digests (`ModelSHA256`, and Digest's SHA-256 and MD5).
public enum HexDigits {
    public static func lowercase(_ bytes: [UInt8]) -> String {
        // One buffer, no String per byte (it was most of a journal key's cost).
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = digits[Int(byte >> 4)]
                out[2 * i + 1] = digits[Int(byte & 0xF)]
            }
            return bytes.count * 2
        }
    }
}
