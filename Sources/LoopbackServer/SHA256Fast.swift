// The hasher `/echo` uses. SHA-256 in Swift runs at only ~5 MB/s in a debug build, which would
// make 256 MiB uploads take most of a minute, so when BoringSSL (vendored by swift-nio-ssl, a
// dependency of this target) is importable we hash with its C SHA-256 instead; otherwise we fall
// back to the Swift implementation in SHA256.swift. Both produce the same standard digest.
#if canImport(CNIOBoringSSL)
import CNIOBoringSSL

/// Incremental SHA-256 backed by BoringSSL's `SHA256_*` functions.
struct SHA256Hasher {
    private var context = SHA256_CTX()

    init() { SHA256_Init(&context) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        SHA256_Update(&context, base, bytes.count)
    }

    /// Pads, finishes and returns the digest as 64 lowercase hex digits. Call once.
    mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        SHA256_Final(&digest, &context)
        let hex = Array("0123456789abcdef")
        return String(digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xf)]] })
    }
}
#else
typealias SHA256Hasher = SwiftSHA256
#endif
