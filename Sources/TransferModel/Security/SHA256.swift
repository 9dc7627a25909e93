import CCurl
import Foundation

/// SHA-256 through the OpenSSL shim in CCurl (no CryptoKit on Linux, and swift-crypto would be
/// a dependency for one function).
public enum SHA256 {
    /// The 32-byte digest of `data`.
    public static func digest(_ data: Data) -> [UInt8] {
        var ctx = tk_sha256_begin()
        data.withUnsafeBytes { tk_sha256_update(&ctx, $0.baseAddress, $0.count) }
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBufferPointer { tk_sha256_end(&ctx, $0.baseAddress!) }
        return out
    }

    /// The digest as 64 lowercase hex digits.
    public static func hex(_ data: Data) -> String {
        digest(data).map { byte in
            let s = String(byte, radix: 16)
            return byte < 16 ? "0" + s : s
        }.joined()
    }
}
