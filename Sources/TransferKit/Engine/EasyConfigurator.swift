import CCurl
import Foundation

/// The steps of setting up a handle that read or change a transfer's own state and stay with
/// it on the engine: the scheme's (TransferEngine+Schemes), authentication (+Auth), client
/// certificates and server-trust exceptions (+ServerTrust), a revalidation's headers (+Cache).
protocol TransferSetupSteps: AnyObject {
    func configureAuthentication(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError)
    func cacheConditionalHeaders(_ t: Transfer) -> [HTTPHeader]
}

extension TransferEngine: TransferSetupSteps {}

/// Configures the easy handle of a transfer's current request from the session's
/// configuration and what the session holds for every request: its share handle, trust
/// store, cookie layers, HSTS hosts and trace. Transfer thread only (`share` is made as the
/// thread starts, and both go at its teardown).
final class EasyConfigurator {
    let configuration: TransferConfiguration
    let cookies: CookieLayers
    let hsts: SessionHSTS
    let trace: RequestTrace
    /// The session's DNS cache and TLS sessions (`ShareHandle`).
    var share: ShareHandle?
    /// Loaded on the transfer thread when the first https request is set up: its cost is in
    /// that request's queue time, never in a network phase.
    lazy var trustStore: TrustStore? = TrustStore(extraCAFile: configuration.additionalTrustedCAFile,
                                                  system: configuration.systemTrustLocations)

    /// The session's server-trust exceptions, for an https hop's options.
    let trustExceptions: ServerTrustExceptions

    init(configuration: TransferConfiguration, cookies: CookieLayers, hsts: SessionHSTS, trace: RequestTrace,
         trustExceptions: ServerTrustExceptions) {
        self.configuration = configuration
        self.trustExceptions = trustExceptions
        self.cookies = cookies
        self.hsts = hsts
        self.trace = trace
    }

    /// Builds and configures the easy handle for a transfer's current request; `fresh`, a
    /// handle just made and never used, is configured instead of making another. `steps`: the
    /// engine, for the steps that belong to the transfer's state.
    func makeEasy(for t: Transfer, using fresh: EasyHandle? = nil, steps: some TransferSetupSteps) throws(TransferError) -> EasyHandle {
        hsts.upgrade(t)
        let r = t.request
        guard let schemeName = r.url.scheme?.lowercased() else {
            throw TransferError(.badURL, "the URL has no scheme: \(Redaction.redactURL(r.url.absoluteString))")
        }
        guard let scheme = URLScheme(rawValue: schemeName) else {
            throw TransferError(.unsupportedURL, "unsupported URL scheme '\(SafeQuote.quote(schemeName, limit: 16))' "
                                + "(use \(URLScheme.supportedList))", failingURL: Redaction.redactURL(r.url.absoluteString))
        }
        let host = r.url.host
        if scheme.needsHost, host?.isEmpty ?? true {
            throw TransferError(.badURL, "the URL has no host: \(Redaction.redactURL(r.url.absoluteString))")
        }
        t.scheme = scheme
        // The hop's place in the engine's per-host queue, from the parts read here (attach reads
        // it; an upgrade by HSTS above came first).
        t.hostKey = hostKey(scheme: schemeName, host: host, port: r.url.port)
        try ByteStreamScheme.prepare(t)
        guard let easy = fresh ?? EasyHandle() else { throw TransferError(.unknown, "libcurl could not create a handle") }
        do {
            try configureBasics(easy, t)
            try configureMethodAndBody(easy, t)
            if scheme.isHTTP {
                try configureHeaders(easy, t, steps)
            } else {
                try steps.configureAuthentication(easy, t)  // an FTP login from -u (the URL's own works too)
                try ByteStreamScheme.configure(easy, t)
            }
            if scheme.needsHost { try configureTLSAndProxy(easy, isTLS: scheme.isTLS) }
            if scheme.isTLS { try configureClientCertificate(easy) }
            // The server-trust exception is the https challenge flow's (DECISIONS 91).
            if scheme.isHTTP && scheme.isTLS { try trustExceptions.configure(easy, t) }
            try trace.configure(easy, t)
        } catch {
            // A header refused before libcurl saw it is the request's fault, as a session's own
            // refusal of such a header is (invalidRequest); anything else libcurl refused here
            // is the URL's.
            if let refused = error.refusal {
                throw TransferError(.invalidRequest, "refused to send the request: \(refused)",
                                    failingURL: Redaction.redactURL(r.url.absoluteString))
            }
            throw TransferError(.badURL, "the request could not be set up: \(error)",
                                failingURL: Redaction.redactURL(r.url.absoluteString))
        }
        return easy
    }

    /// The last hop's host key and the parts it was made of: a list's URLs mostly share a host,
    /// and each key made anew is a string built and a host lower-cased per hop.
    private var lastHostKey: (scheme: String, host: String?, port: Int?, key: String)?

    private func hostKey(scheme: String, host: String?, port: Int?) -> String {
        if let last = lastHostKey, last.port == port, last.host == host, last.scheme == scheme { return last.key }
        let key = HostSlots<Transfer>.key(scheme: scheme, host: host, port: port)
        lastHostKey = (scheme, host, port, key)
        return key
    }

    /// libcurl's receive buffer per handle (its default is 16 KiB): 512 KiB per write callback.
    static let receiveBufferSize = 512 * 1024
    /// The receive buffer of a body decoded under the bomb guard: libcurl's default. The guard
    /// compares decoded bytes with bytes read, and bytes read but not yet decoded (up to one
    /// buffer) put off its verdict by up to the buffer times the ratio; the decoder hands
    /// its output over in 16 KiB pieces whatever the buffer.
    static let guardedReceiveBufferSize = 16 * 1024

    /// Whether this hop asks for content codings and gets the body decoded by libcurl
    /// (`ContentCodingPolicy`): the configuration says so and no byte range is requested.
    func decodesContent(_ t: Transfer) -> Bool {
        // Each list asked on its own: joining them made a new array twice per request.
        ContentCodingPolicy.decodes(accepts: configuration.httpAcceptsContentEncoding, requestHeaders: t.request.headers)
            && ContentCodingPolicy.decodes(accepts: true, requestHeaders: configuration.httpAdditionalHeaders)
    }

    private func configureBasics(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        try e.set(CURLOPT_URL, t.curlURL)
        try e.set(CURLOPT_PRIVATE, pointer: t.opaque)
        try e.set(CURLOPT_NOSIGNAL, true)
        // Redirects are followed hop by hop by the engine: per-hop metrics, delegate veto.
        try e.set(CURLOPT_FOLLOWLOCATION, false)
        // Only this hop's own protocol: a URL cannot be made to reach another one.
        try e.set(CURLOPT_PROTOCOLS_STR, t.scheme.curlProtocol)
        let decodes = t.scheme.isHTTP && decodesContent(t)
        let guarded = decodes && configuration.maximumDecodedRatio != nil
        try e.set(CURLOPT_BUFFERSIZE, guarded ? Self.guardedReceiveBufferSize : Self.receiveBufferSize)
        try e.set(CURLOPT_HTTP_VERSION, configuration.allowsHTTP2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1))
        // PIPEWAIT only where HTTP/2 can be negotiated (TLS + ALPN): on cleartext HTTP/1.1,
        // 7.88 makes a second request wait for the first connection to finish and reuses it,
        // serialising requests that should run on parallel connections.
        if configuration.allowsHTTP2 && t.scheme == .https {
            try e.set(CURLOPT_PIPEWAIT, true)
        }
        if let share { try e.set(CURLOPT_SHARE, pointer: share.raw) }
        try CurlSetupError.check(tk_easy_setopt_data_cb(e.raw, CURLOPT_WRITEFUNCTION, TransferCallbacks.write))
        try e.set(CURLOPT_WRITEDATA, pointer: t.opaque)
        try CurlSetupError.check(tk_easy_setopt_data_cb(e.raw, CURLOPT_HEADERFUNCTION, TransferCallbacks.header))
        try e.set(CURLOPT_HEADERDATA, pointer: t.opaque)
        try CurlSetupError.check(tk_easy_setopt_prereq_cb(e.raw, TransferCallbacks.prereq))
        try e.set(CURLOPT_PREREQDATA, pointer: t.opaque)
        try CurlSetupError.check(tk_easy_setopt_resolver_start_cb(e.raw, TransferCallbacks.resolverStart))
        try e.set(CURLOPT_RESOLVER_START_DATA, pointer: t.opaque)
        try CurlSetupError.check(tk_easy_setopt_sockopt_cb(e.raw, TransferCallbacks.sockopt))
        try e.set(CURLOPT_SOCKOPTDATA, pointer: t.opaque)
        if decodes { try e.set(CURLOPT_ACCEPT_ENCODING, "") }
    }

    private func configureMethodAndBody(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        let method = t.request.httpMethod.uppercased()
        let hasBody = t.task.upload != nil && t.hasBodyThisHop
        if hasBody {
            try e.set(CURLOPT_UPLOAD, true)
            try e.set(CURLOPT_INFILESIZE_LARGE, offset: t.task.uploadLength)
            // As the download buffer: 512 KiB per read callback instead of libcurl's 64 KiB.
            try e.set(CURLOPT_UPLOAD_BUFFERSIZE, 512 * 1024)
            try CurlSetupError.check(tk_easy_setopt_data_cb(e.raw, CURLOPT_READFUNCTION, TransferCallbacks.read))
            try e.set(CURLOPT_READDATA, pointer: t.opaque)
            try CurlSetupError.check(tk_easy_setopt_seek_cb(e.raw, TransferCallbacks.seek))
            try e.set(CURLOPT_SEEKDATA, pointer: t.opaque)
            if method != "PUT", t.scheme.isHTTP { try e.set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "HEAD" {
            try e.set(CURLOPT_NOBODY, true)
        } else if method == "POST" {
            try e.set(CURLOPT_POST, true)
            try e.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
        } else if method != "GET" {
            try e.set(CURLOPT_CUSTOMREQUEST, method)
        }
    }

    private func configureHeaders(_ e: EasyHandle, _ t: Transfer, _ steps: some TransferSetupSteps) throws(CurlSetupError) {
        var headers = t.request.headers
        // The session's credentials go only where the task's origin allows: a
        // request's own headers were already filtered hop by hop by `RedirectPolicy`.
        let sessionHeaders = RedirectPolicy.headers(configuration.httpAdditionalHeaders, origin: t.task.originalRequest.url,
                                                    hop: t.request.url, trusted: configuration.redirectsKeepCredentials)
        for h in sessionHeaders where headers.first(named: h.name) == nil {
            headers.append(h)
        }
        // The store's cookies for this hop's URL (its own domain, path and scheme only: a
        // cookie never goes to a host it does not belong to), after a Cookie header of the
        // request's own, as curl joins `-b` strings and its cookie engine's.
        if let stored = cookies.header(for: t.request) {
            if let i = headers.firstIndex(where: { $0.name.caseInsensitiveCompare("Cookie") == .orderedSame }) {
                headers[i] = HTTPHeader(headers[i].name, headers[i].value + "; " + stored)
            } else {
                headers.append(HTTPHeader("Cookie", stored))
            }
        }
        // A cached response being revalidated: its validators (TransferEngine+Cache.swift).
        headers += steps.cacheConditionalHeaders(t)
        try steps.configureAuthentication(e, t)
        // The caller's and the session's headers were checked when the task was made; this is
        // the last check of all this request carries, the engine's own among them (stored
        // validators, cookies): libcurl sends header text as it is given.
        if let problem = HeaderValidation.firstProblem(headers) { throw .refusing(problem.description) }
        var lines = headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        // No `Expect: 100-continue` round trip before bodies: servers rarely need it on
        // loopback-speed links and it costs up to a second against servers that ignore it.
        if t.task.upload != nil { lines.append("Expect:") }
        // POST's Content-Type as Foundation sets it: the form type for a body without a type,
        // none for a body-less POST (libcurl's CURLOPT_POST would add the form type there).
        if t.request.httpMethod.uppercased() == "POST", headers.first(named: "Content-Type") == nil {
            let sendsBody = t.task.upload != nil && t.hasBodyThisHop && t.task.uploadLength != 0
            lines.append(sendsBody ? "Content-Type: application/x-www-form-urlencoded" : "Content-Type:")
        }
        try e.set(CURLOPT_HTTPHEADER, list: lines)
    }

    private func configureTLSAndProxy(_ e: EasyHandle, isTLS: Bool) throws(CurlSetupError) {
        let minV = Self.curlSSLVersion(configuration.tlsMinimumSupportedProtocolVersion)
        let maxV = configuration.tlsMaximumSupportedProtocolVersion.map { Self.curlSSLVersion($0) << 16 } ?? 0
        try e.set(CURLOPT_SSLVERSION, minV | maxV)
        // TLS is verified unless the session says otherwise (`-k`, marked in every export).
        try e.set(CURLOPT_SSL_VERIFYPEER, !configuration.allowsInsecureTLS)
        try e.set(CURLOPT_SSL_VERIFYHOST, configuration.allowsInsecureTLS ? 0 : 2)
        // Plain HTTP never loads the trust store (a redirect to https sets up a new hop).
        if isTLS { try configureTrust(e) }
        if isTLS, let pins = configuration.pinnedPublicKeys { try e.set(CURLOPT_PINNEDPUBLICKEY, pins) }
        // An explicit empty proxy also stops libcurl from reading proxy environment variables.
        try e.set(CURLOPT_PROXY, configuration.proxy ?? "")
    }

    /// The session's parsed trust store for every connection (`TrustStore`).
    private func configureTrust(_ e: EasyHandle) throws(CurlSetupError) {
        if let trustStore {
            try CurlSetupError.check(tk_easy_use_trust_store(e.raw, trustStore.raw))
        } else if let extra = configuration.additionalTrustedCAFile {
            // Unreadable: libcurl reports it as curl does (77, "problem with the CA cert").
            try e.set(CURLOPT_CAINFO, extra)
        }
    }

    static func curlSSLVersion(_ v: TLSVersion) -> Int {
        switch v {
        case .v1_0: return 4
        case .v1_1: return 5
        case .v1_2: return 6
        case .v1_3: return 7
        }
    }

    /// A client certificate for servers that ask for one (CURLOPT_SSLCERT/SSLKEY/KEYPASSWD,
    /// PEM); part of libcurl's connection matching, so a connection made with it never
    /// serves a request made without.
    func configureClientCertificate(_ e: EasyHandle) throws(CurlSetupError) {
        guard let certificate = configuration.clientCertificateFile else { return }
        try e.set(CURLOPT_SSLCERT, certificate)
        if let key = configuration.clientKeyFile { try e.set(CURLOPT_SSLKEY, key) }
        if let password = configuration.clientKeyPassword { try e.set(CURLOPT_KEYPASSWD, password) }
    }
}
