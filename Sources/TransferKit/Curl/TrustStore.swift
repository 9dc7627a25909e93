import CCurl
import Foundation

/// The certificates a session trusts, parsed once and shared by every TLS connection it makes
/// (issue 16): libcurl's built-in bundle and CA directory, plus the configuration's extra CA
/// file. libcurl 7.88 would parse the bundle again for each new connection, after sending the
/// ClientHello, so that CPU (~20-30 ms) showed up as the server's TLS time. Debian's libcurl
/// also sets a CA directory, which disables its own per-multi CA cache (`CA_CACHE_TIMEOUT`
/// applies only without CAPATH), hence a store of ours, handed over in the SSL_CTX callback.
///
/// Made and freed on the session's transfer thread; the OpenSSL store is reference-counted,
/// so connections still cached by libcurl keep their own reference.
final class TrustStore {
    struct SystemTrustLocations: Sendable, Equatable {
        var bundle: String?
        var directory: String?
    }

    let raw: OpaquePointer

    /// nil when the extra CA file cannot be read: the caller then hands the file to libcurl,
    /// which reports it as curl does (error 77, "problem with the CA cert").
    /// `system`: the CA bundle and directory; nil for libcurl's built-in ones (tests give their own).
    init?(extraCAFile: String?, system: SystemTrustLocations? = nil) {
        guard let probe = EasyHandle() else { return nil }
        let bundle = system.map { $0.bundle } ?? tk_default_ca_info(probe.raw, 0).map { String(cString: $0) }
        let directory = system.map { $0.directory } ?? tk_default_ca_info(probe.raw, 1).map { String(cString: $0) }
        var systemLoaded: Int32 = 0
        // A missing system bundle is not an error: the extra file, or nothing, is trusted then
        // (and verification fails as curl's would).
        let parsed = Self.bundleToParse(bundle, directory: directory)
        guard let store = tk_trust_store_new(parsed, directory, &systemLoaded) else { return nil }
        if let extraCAFile, tk_trust_store_add_file(store, extraCAFile) != 1 {
            tk_trust_store_free(store)
            return nil
        }
        raw = store
    }

    deinit { tk_trust_store_free(raw) }

    /// The bundle file to parse up front, or nil when the CA directory stands for it.
    ///
    /// Parsing Debian's bundle (139 certificates) took 15 ms, on the transfer thread before the
    /// first TLS handshake: half of a one-URL https run's CPU beyond curl's (issue 8). The
    /// directory's hashed names (`c_rehash`: `5ed36f99.0`) let OpenSSL read a certificate only
    /// when a chain needs it. `update-ca-certificates` writes both from one set, the bundle
    /// first; a bundle changed after the directory (a certificate appended by hand) is parsed
    /// as before, as it is when there is no directory or it has no hashed names.
    static func bundleToParse(_ bundle: String?, directory: String?) -> String? {
        guard let bundle, let directory else { return bundle }
        var b = stat(), d = stat()
        guard stat(bundle, &b) == 0 else { return bundle }  // missing: reported as before
        guard stat(directory, &d) == 0 else { return bundle }
        return directoryStandsForBundle(bundleModified: b.st_mtim, directoryModified: d.st_mtim,
                                        hasHashedNames: hasHashedNames(directory)) ? nil : bundle
    }

    /// Pure rule of `bundleToParse`: the directory has hashed names and was changed no earlier
    /// than the bundle.
    static func directoryStandsForBundle(bundleModified: timespec, directoryModified: timespec, hasHashedNames: Bool) -> Bool {
        guard hasHashedNames else { return false }
        if directoryModified.tv_sec != bundleModified.tv_sec { return directoryModified.tv_sec > bundleModified.tv_sec }
        return directoryModified.tv_nsec >= bundleModified.tv_nsec
    }

    /// Whether `directory` holds an OpenSSL hashed name: eight hex digits, a dot, a digit.
    static func hasHashedNames(_ directory: String) -> Bool {
        guard let dir = opendir(directory) else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if isHashedName(name) { return true }
        }
        return false
    }

    static func isHashedName(_ name: [UInt8]) -> Bool {
        guard name.count == 10, name[8] == UInt8(ascii: "."), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(name[9])
        else { return false }
        return name[..<8].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
