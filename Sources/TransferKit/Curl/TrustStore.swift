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
    /// when a chain needs it. The directory stands for the bundle only when it was changed
    /// after it (`update-ca-certificates` writes the bundle, then the names) and holds a hashed
    /// name that resolves to a file for every certificate of the bundle: a certificate appended
    /// to the bundle, a directory copied without its targets, or one with a few corporate CAs
    /// beside a full bundle, and the bundle is parsed as before (a review found the last two).
    static func bundleToParse(_ bundle: String?, directory: String?) -> String? {
        guard let bundle, let directory else { return bundle }
        var b = stat(), d = stat()
        guard stat(bundle, &b) == 0 else { return bundle }  // missing: reported as before
        guard stat(directory, &d) == 0, isNewer(d.st_mtim, than: b.st_mtim) else { return bundle }
        // Counted only now: the common case on a system whose bundle was edited is one stat.
        let certificates = certificateCount(bundle)
        guard certificates > 0 else { return bundle }
        return resolvingHashedNames(directory) >= certificates ? nil : bundle
    }

    /// Strictly later: a tie (coarse file times) does not tell which was written last.
    static func isNewer(_ a: timespec, than b: timespec) -> Bool {
        a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec
    }

    /// How many PEM certificates the file holds (their BEGIN lines); 0 when unreadable.
    static func certificateCount(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        return data.withUnsafeBytes { raw -> Int in
            let bytes = raw.bindMemory(to: UInt8.self)
            var count = 0, i = 0
            while i + marker.count <= bytes.count {
                if bytes[i] == marker[0], bytes[i..<(i + marker.count)].elementsEqual(marker) {
                    count += 1
                    i += marker.count
                } else {
                    i += 1
                }
            }
            return count
        }
    }

    /// How many OpenSSL hashed names in `directory` lead to a regular file (a link whose
    /// target was not copied does not count).
    static func resolvingHashedNames(_ directory: String) -> Int {
        guard let dir = opendir(directory) else { return 0 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            guard isHashedName(name) else { continue }
            var st = stat()
            if stat(directory + "/" + String(decoding: name, as: UTF8.self), &st) == 0, st.st_mode & S_IFMT == S_IFREG {
                count += 1
            }
        }
        return count
    }

    /// Eight lowercase hex digits, a dot, a digit: `c_rehash`'s names for certificates (its
    /// CRLs are `.r0`).
    static func isHashedName(_ name: [UInt8]) -> Bool {
        guard name.count == 10, name[8] == UInt8(ascii: "."), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(name[9])
        else { return false }
        return name[..<8].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
