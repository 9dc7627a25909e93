// The hasher `/echo` uses: OpenSSL's SHA-256 through the CCurl shim (the shim already links
// libcrypto for TransferKit). SHA-256 written in Swift runs at ~5 MB/s in a debug build, which
// would make 256 MiB uploads take most of a minute; SwiftSHA256 stays as the reference the
// tests compare against.
import CCurl

/// Incremental SHA-256 backed by OpenSSL's EVP interface.
final class SHA256Hasher {
    private var context = tk_sha256_begin()

    init() {}

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        tk_sha256_update(&context, base, bytes.count)
    }

    /// Pads, finishes and returns the digest as 64 lowercase hex digits. Call once.
    func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        tk_sha256_end(&context, &digest)
        let hex = Array("0123456789abcdef")
        return String(digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xf)]] })
    }

    deinit {
        var scratch = [UInt8](repeating: 0, count: 32)
        tk_sha256_end(&context, &scratch)  // frees the context if never finalised (no-op after)
    }
}
