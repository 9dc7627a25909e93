import CCurl
import Foundation

/// The certificates a session trusts, parsed once and shared by every TLS connection it makes:
/// libcurl's built-in bundle and CA directory, plus the configuration's extra CA
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
    /// first TLS handshake: half of a one-URL https run's CPU beyond curl's. The
    /// directory's hashed names (`c_rehash`: `5ed36f99.0`) let OpenSSL read a certificate only
    /// when a chain needs it. The directory stands for the bundle only when it was changed
    /// after it (`update-ca-certificates` writes the bundle, then the names) and every
    /// certificate of the bundle is, byte for byte, in a file a hashed name leads to
    /// (`update-ca-certificates` concatenates those very files; blocks compared through a
    /// hash set: 1.6-2.7 ms for Debian's 139 in a debug build, against 15 ms to parse them).
    /// A certificate appended to the bundle, a directory copied without its targets, a few
    /// corporate CAs beside a full bundle: the bundle is parsed as before. Counting names
    /// against certificates was not enough: an extra name (a snakeoil certificate) hid an
    /// appended CA, which was then refused (a review found it).
    static func bundleToParse(_ bundle: String?, directory: String?) -> String? {
        guard let bundle, let directory else { return bundle }
        var b = stat(), d = stat()
        guard stat(bundle, &b) == 0 else { return bundle }  // missing: reported as before
        guard stat(directory, &d) == 0, isNewer(d.st_mtim, than: b.st_mtim) else { return bundle }
        // Read only now: the common case on a system whose bundle was edited is one stat.
        guard let contents = FileManager.default.contents(atPath: bundle) else { return bundle }
        var missing = Set(certificateBlocks(contents))
        guard !missing.isEmpty else { return bundle }
        forEachHashedFile(in: directory) { file in
            for block in certificateBlocks(file) { missing.remove(block) }
            return !missing.isEmpty
        }
        return missing.isEmpty ? nil : bundle
    }

    /// Strictly later: a tie (coarse file times) does not tell which was written last.
    static func isNewer(_ a: timespec, than b: timespec) -> Bool {
        a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec
    }

    /// The PEM certificates in `data`, each as the bytes between its BEGIN and END lines.
    /// `update-ca-certificates` copies each file into the bundle as it is, so equal
    /// certificates are equal bytes; one written otherwise (other line breaks) is simply not
    /// found, and the bundle is parsed. Text outside the markers (a comment before a local CA)
    /// is ignored; an unterminated block is no certificate.
    static func certificateBlocks(_ data: Data) -> [Data] {
        let begin = Array("-----BEGIN CERTIFICATE-----".utf8), end = Array("-----END CERTIFICATE-----".utf8)
        return data.withUnsafeBytes { raw -> [Data] in
            guard let base = raw.baseAddress else { return [] }
            var blocks: [Data] = [], offset = 0
            while let found = find(begin, in: raw, from: offset) {
                let start = found + begin.count
                guard let stop = find(end, in: raw, from: start) else { break }
                blocks.append(Data(bytes: base + start, count: stop - start))
                offset = stop + end.count
            }
            return blocks
        }
    }

    /// Where `needle` first occurs in `raw` at or after `from` (memchr to its first byte, which
    /// in PEM is the markers' dash, then memcmp).
    private static func find(_ needle: [UInt8], in raw: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard let base = raw.baseAddress, !needle.isEmpty else { return nil }
        var i = from
        while i + needle.count <= raw.count {
            guard let hit = memchr(base + i, Int32(needle[0]), raw.count - needle.count + 1 - i) else { return nil }
            let at = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(hit, needle, needle.count) == 0 { return at }
            i = at + 1
        }
        return nil
    }

    /// Calls `body` with the contents of each regular file (under 1 MiB) a hashed name in
    /// `directory` leads to (a link whose target was not copied leads nowhere), until it
    /// returns false.
    static func forEachHashedFile(in directory: String, _ body: (Data) -> Bool) {
        DirectoryNames.forEach(in: directory) { name in
            guard isHashedName(name) else { return true }
            let path = directory + "/" + String(decoding: name, as: UTF8.self)
            var st = stat()
            guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size < 1 << 20 else { return true }
            guard let contents = FileManager.default.contents(atPath: path) else { return true }
            return body(contents)
        }
    }

    /// Eight lowercase hex digits, a dot, a digit: `c_rehash`'s names for certificates (its
    /// CRLs are `.r0`).
    static func isHashedName(_ name: [UInt8]) -> Bool {
        guard name.count == 10, name[8] == UInt8(ascii: "."), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(name[9])
        else { return false }
        return name[..<8].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
