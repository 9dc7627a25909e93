import CCurl

/// An owned libcurl easy handle with typed setters.
///
/// Not `Sendable`: it lives on the transfer thread that created it and dies there. Strings
/// are copied by libcurl (since 7.17); header lists must outlive the handle, so it keeps them.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    private var lists: [UnsafeMutablePointer<curl_slist>] = []
    /// libcurl writes its human error text here; it must live as long as the handle.
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init?() {
        guard CurlGlobal.ready, let h = curl_easy_init() else { return nil }
        raw = h
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        _ = tk_easy_setopt_ptr(raw, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        curl_easy_cleanup(raw)
        for l in lists { curl_slist_free_all(l) }
        errorBuffer.deallocate()
    }

    var errorText: String { String(cString: errorBuffer) }

    /// Back to a new handle's options (`curl_easy_reset`) for the next transfer: its header
    /// lists go, its error text is cleared. Connections, the DNS cache and the share stay with
    /// the multi and the share, as for a new handle.
    func reset() {
        curl_easy_reset(raw)
        for l in lists { curl_slist_free_all(l) }
        lists.removeAll(keepingCapacity: true)
        errorBuffer[0] = 0
        _ = tk_easy_setopt_ptr(raw, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    func set(_ o: CURLoption, _ v: Int) throws(CurlSetupError) {
        try check(tk_easy_setopt_long(raw, o, v), o)
    }
    func set(_ o: CURLoption, _ v: Bool) throws(CurlSetupError) { try set(o, v ? 1 : 0) }
    func set(_ o: CURLoption, offset v: Int64) throws(CurlSetupError) {
        try check(tk_easy_setopt_off(raw, o, curl_off_t(v)), o)
    }
    func set(_ o: CURLoption, _ v: String?) throws(CurlSetupError) {
        try check(tk_easy_setopt_str(raw, o, v), o)
    }
    func set(_ o: CURLoption, pointer v: UnsafeRawPointer?) throws(CurlSetupError) {
        try check(tk_easy_setopt_ptr(raw, o, v), o)
    }
    func set(_ o: CURLoption, list: [String]) throws(CurlSetupError) {
        var l: UnsafeMutablePointer<curl_slist>? = nil
        for s in list { l = curl_slist_append(l, s) }
        if let l { lists.append(l) }
        try check(tk_easy_setopt_slist(raw, o, l), o)
    }

    private func check(_ rc: CURLcode, _ o: CURLoption) throws(CurlSetupError) {
        guard rc == CURLE_OK else { throw CurlSetupError(option: o.rawValue, code: rc.rawValue) }
    }

    // MARK: getinfo

    func long(_ i: CURLINFO) -> Int {
        var v = 0
        return tk_easy_getinfo_long(raw, i, &v) == CURLE_OK ? v : 0
    }
    func offset(_ i: CURLINFO) -> Int64 {
        var v: curl_off_t = 0
        return tk_easy_getinfo_off(raw, i, &v) == CURLE_OK ? Int64(v) : 0
    }
    func string(_ i: CURLINFO) -> String? {
        var p: UnsafePointer<CChar>? = nil
        guard tk_easy_getinfo_str(raw, i, &p) == CURLE_OK, let p else { return nil }
        return String(cString: p)
    }

    /// Negotiated TLS version and cipher, and whether the handshake resumed a TLS session;
    /// only while the connection is attached.
    func tlsInfo() -> TLSFacts? {
        // On the stack: two arrays per response were 1 % of a small-file run's CPU.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { v in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { c in
                v[0] = 0
                c[0] = 0
                var resumed: Int32 = 0
                guard tk_tls_info(raw, v.baseAddress!, v.count, c.baseAddress!, c.count, &resumed) == 1 else { return nil }
                return TLSFacts(version: String(cString: v.baseAddress!), cipher: String(cString: c.baseAddress!), resumed: resumed == 1)
            }
        }
    }
}

struct TLSFacts {
    var version: String
    var cipher: String
    var resumed: Bool
}

/// A `curl_easy_setopt` that libcurl refused: a programming or build error, never ignored.
struct CurlSetupError: Error, CustomStringConvertible {
    var option: UInt32
    var code: UInt32
    /// Said instead of libcurl's message: a setting refused before it reached libcurl.
    var refusal: String? = nil
    var description: String {
        refusal ?? "curl_easy_setopt(\(option)) failed: \(String(cString: curl_easy_strerror(CURLcode(rawValue: code))))"
    }

    /// A header refused before libcurl saw it (`HeaderValidation`).
    static func refusing(_ why: String) -> CurlSetupError {
        CurlSetupError(option: CURLOPT_HTTPHEADER.rawValue, code: CURLE_BAD_FUNCTION_ARGUMENT.rawValue, refusal: why)
    }

    /// For the setters of callbacks, which return a bare `CURLcode` (no option to name).
    static func check(_ rc: CURLcode) throws(CurlSetupError) {
        guard rc == CURLE_OK else { throw CurlSetupError(option: 0, code: rc.rawValue) }
    }
}

/// Easy handles of finished transfers, reset and kept for the next ones (transfer thread
/// only; DECISIONS 123, 208). The bound is a burst, not a loop turn: a session given a thousand
/// tasks at once finishes hundreds of them before its delegate's next batch of new ones
/// arrives. A spare holds ~5.5 KB (libcurl freed its receive buffer when its transfer was
/// done), and there are never more handles than were alive at once.
final class SpareHandles {
    static let limit = 1024
    private var handles: [EasyHandle] = []

    func take() -> EasyHandle? { handles.popLast() ?? EasyHandle() }

    func put(_ handle: EasyHandle) {
        guard handles.count < Self.limit else { return }
        handle.reset()
        // libcurl 7.88 refuses a new receive buffer size while the handle still holds its
        // buffer: an HTTP/2 stream's handle keeps it when its connection still carries other
        // streams (`multi_done` returns early), and with it the bytes of a paused write, which
        // the next transfer would be handed. Such a handle would read in 16 KiB pieces, or
        // fail `makeEasy`, so it is not kept.
        guard tk_easy_setopt_long(handle.raw, CURLOPT_BUFFERSIZE, EasyConfigurator.receiveBufferSize) == CURLE_OK else { return }
        handles.append(handle)
    }

    /// Before the share goes: a spare is still attached to it.
    func removeAll() { handles.removeAll() }
}

