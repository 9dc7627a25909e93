import CCurl
import Foundation
import TransferModel

/// SHA-256 through the OpenSSL shim in CCurl (no CryptoKit on Linux, and swift-crypto would be
/// a dependency for one function): file names, segment digests and bodies hashed as they
/// stream. TransferModel has its own small digest for the few short values it checks
/// (`ModelSHA256`), so it needs no C (DECISIONS 181).
public enum SHA256 {
    /// The 32-byte digest of `data`.
    public static func digest(_ data: Data) -> [UInt8] { data.withUnsafeBytes(digest(bytes:)) }

    static func digest(bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBufferPointer { tk_sha256(bytes.baseAddress, bytes.count, $0.baseAddress!) }
        return out
    }

    /// The digest as 64 lowercase hex digits.
    public static func hex(_ data: Data) -> String { hex(digest(data)) }

    /// The digest of `text`'s UTF-8, as hex, hashed where the string keeps its bytes (no `Data`).
    public static func hex(utf8 text: String) -> String {
        var text = text
        return hex(text.withUTF8 { digest(bytes: UnsafeRawBufferPointer($0)) })
    }

    public static func hex(_ digest: [UInt8]) -> String { HexDigits.lowercase(digest) }

    /// Incremental SHA-256, for bodies hashed as they stream (the loopback server's `/echo`).
    public final class Hasher {
        private var context = tk_sha256_begin()

        public init() {}

        public func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            tk_sha256_update(&context, base, bytes.count)
        }

        /// The 32-byte digest. Call once.
        public func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            out.withUnsafeMutableBufferPointer { tk_sha256_end(&context, $0.baseAddress!) }
            return out
        }

        public func finalizeHex() -> String { SHA256.hex(finalize()) }
    }
}

/// MD5 through the OpenSSL shim, for RFC 7616 Digest in the loopback server only.
public enum MD5 {
    public static func hex(_ text: String) -> String {
        var out = [UInt8](repeating: 0, count: 16)
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { b in out.withUnsafeMutableBufferPointer { tk_md5(b.baseAddress, b.count, $0.baseAddress!) } }
        return SHA256.hex(out)
    }
}
