import CCurl

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
    let raw: OpaquePointer

    /// nil when the extra CA file cannot be read: the caller then hands the file to libcurl,
    /// which reports it as curl does (error 77, "problem with the CA cert").
    init?(extraCAFile: String?) {
        guard let probe = EasyHandle() else { return nil }
        let bundle = tk_default_ca_info(probe.raw, 0).map { String(cString: $0) }
        let directory = tk_default_ca_info(probe.raw, 1).map { String(cString: $0) }
        var systemLoaded: Int32 = 0
        // A missing system bundle is not an error: the extra file, or nothing, is trusted then
        // (and verification fails as curl's would).
        guard let store = tk_trust_store_new(bundle, directory, &systemLoaded) else { return nil }
        if let extraCAFile, tk_trust_store_add_file(store, extraCAFile) != 1 {
            tk_trust_store_free(store)
            return nil
        }
        raw = store
    }

    deinit { tk_trust_store_free(raw) }
}
