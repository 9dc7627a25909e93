import Foundation

/// A session's configuration. A value: the session copies it at creation, so
/// changing the original later changes nothing.
public struct TransferConfiguration: Sendable, Equatable {
    public var kind: SessionKind
    /// Idle time allowed between bytes, reset by every byte; frozen while suspended. Default 60 s.
    public var timeoutIntervalForRequest: TimeInterval = 60
    /// Time allowed for the whole task, suspended time excluded. Default 7 days.
    public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
    /// Connections per host (libcurl queues the rest). Default 6.
    public var httpMaximumConnectionsPerHost: Int = 6
    /// Headers added to every request unless the request sets them itself.
    public var httpAdditionalHeaders: [HTTPHeader] = []
    /// Credential headers (Authorization, Cookie, Proxy-Authorization) follow redirects to
    /// other origins (curl's `--location-trusted`); never from https to http. Default false.
    public var redirectsKeepCredentials = false
    /// A user and password for HTTP authentication (curl's `-u`), sent only to the hops that
    /// may carry credentials (`RedirectPolicy.credentialsAllowed`: the task's origin, unless
    /// `redirectsKeepCredentials`), with the schemes `httpAuthentication` allows.
    public var credential: TransferCredential? = nil
    public var httpAuthentication: HTTPAuthentication = .basic
    /// Credentials from a netrc file, by the host of each hop (nil: none).
    public var netrc: NetrcUse? = nil
    /// Where credentials given to challenges are kept. nil: `CredentialStore.shared`
    /// for default and background sessions (permanent credentials in a 0600 netrc in the
    /// state directory), a store of the session's own, in memory, for ephemeral ones.
    public var credentialStore: CredentialStore? = nil
    /// Whether tasks send the cookie store's cookies and store the ones they get (URLSession's
    /// `httpShouldSetCookies`). A request can opt out (`httpShouldHandleCookies`).
    public var httpShouldSetCookies = true
    /// Which Set-Cookie headers are kept (URLSession's `httpCookieAcceptPolicy`). The default,
    /// as Apple's, keeps cookies from the request's main document's domain; a request without a
    /// `mainDocumentURL` is its own main document (so a redirect to another host still stores
    /// that host's cookies, as curl does).
    public var httpCookieAcceptPolicy: CookieAcceptPolicy = .onlyFromMainDocumentDomain
    /// The cookie store (URLSession's `httpCookieStorage`); nil: the kind's own. `default` and
    /// background sessions share the persistent store of their data directory
    /// (`TransferCookieStorage.persistent`), an ephemeral session gets one in memory, its own.
    public var httpCookieStorage: TransferCookieStorage? = nil
    /// Cookie files read into the session's cookies when its first request starts (curl's
    /// `-b FILE`): Netscape cookies.txt, or `Set-Cookie:` lines with a Domain attribute, read
    /// into the session's own layer in memory when the session is made, never into the shared
    /// persistent store (DECISIONS 109).
    public var cookieFiles: [String] = []
    /// The HTTP cache (URLSession's `urlCache`); nil (the default): none, every request goes to
    /// the network (DECISIONS 102: unlike Apple's default sessions, a downloader's bytes are not
    /// kept twice unless asked). `TransferURLCache.forKind(kind)` gives the kind's cache: a
    /// shared one on disk under `$XDG_CACHE_HOME/transfertop` for default sessions, one in
    /// memory only for an ephemeral session.
    public var urlCache: TransferURLCache? = nil
    /// The policy of requests that do not set one (URLSession's `requestCachePolicy`).
    public var requestCachePolicy: RequestCachePolicy = .useProtocolCachePolicy
    /// HTTP/1.1 pipelining, as URLSession's property: false by default, as Apple's. libcurl
    /// removed HTTP/1.1 pipelining in 7.62, so true changes nothing; HTTP/2 multiplexing of
    /// several tasks on one connection does not depend on it (Apple's neither).
    public var httpShouldUsePipelining = false
    /// URLSession's `waitsForConnectivity` (false by default, as Apple's): a task that cannot
    /// reach its server (connection refused, name not resolved) does not fail; the delegate's
    /// `taskIsWaitingForConnectivity` runs once and the connection is tried again until it
    /// succeeds or `timeoutIntervalForResource` runs out (then `.timedOut`). Linux has no
    /// reachability monitor: waiting is retrying, 100 ms after the first failure, the pause
    /// doubling to 2 s.
    public var waitsForConnectivity = false
    /// Content coding as URLSession does it: every request that is not a byte range sends
    /// `Accept-Encoding` with each coding this libcurl decodes (Debian's 7.88: deflate, gzip,
    /// br, zstd) and the body is handed over decoded; such a response's
    /// `expectedContentLength` is -1 and a decoded download is not resumable. false: no
    /// `Accept-Encoding` unless the request sets one, and the body as it came (curl's default;
    /// the CLI without `--compressed`).
    public var httpAcceptsContentEncoding = true
    /// Redirects a task follows before it fails with `.httpTooManyRedirects` (curl's
    /// `--max-redirs`): 0 follows none, nil follows any number. Default 20
    /// (`RedirectPolicy.maximumRedirects`), the limit Foundation on Linux applies too; the
    /// CLI's `--max-redirs` default is its own 16.
    public var httpMaximumRedirects: Int? = RedirectPolicy.maximumRedirects
    /// The most body bytes a task takes, counted as stored (decoded when content coding is
    /// decoded; curl's `--max-filesize`). A response announcing more with Content-Length
    /// fails before its body, and one whose body grows past it fails when it does, with
    /// `.dataLengthExceedsMaximum`; a download's partial file is removed. nil: no limit.
    public var maximumContentLength: Int64? = nil
    /// A guard against decompression bombs, on decoded bodies only: once a body has decoded
    /// to more than `BodySizeLimit.allowance` (10 MiB) bytes, it fails with
    /// `.dataLengthExceedsMaximum` when its decoded size is more than this many times the
    /// bytes that came over the wire. nil turns the guard off (as a caller who sets
    /// `maximumContentLength` to bound the size itself may). Default 500.
    public var maximumDecodedRatio: Int? = BodySizeLimit.defaultRatio
    /// Prefer HTTP/2 over TLS when the server offers it (ALPN).
    public var allowsHTTP2 = true
    public var tlsMinimumSupportedProtocolVersion: TLSVersion = .v1_2
    public var tlsMaximumSupportedProtocolVersion: TLSVersion? = nil
    /// Extra CA certificates (PEM file) trusted in addition to the system store.
    public var additionalTrustedCAFile: String? = nil
    /// Public-key pins (curl's `--pinnedpubkey`): `sha256//BASE64` hashes of a server's
    /// SubjectPublicKeyInfo, separated by `;`. When set, an https connection whose
    /// certificate's key matches none fails with `serverCertificateUntrusted`, even when the
    /// chain is trusted (pinning adds to verification, never replaces it).
    public var pinnedPublicKeys: String? = nil
    /// curl's `-k`: https connections skip certificate and host name verification. Off by
    /// default and never implied; every transaction made so says `isTLSVerified == false`,
    /// which CSV, HAR and the monitor show.
    public var allowsInsecureTLS = false
    /// A client certificate (PEM) for servers that ask for one (curl's `--cert`), its private
    /// key (PEM; nil: in the certificate's file, curl's `--key`) and the key's password.
    public var clientCertificateFile: String? = nil
    public var clientKeyFile: String? = nil
    public var clientKeyPassword: String? = nil
    /// A proxy URL such as `http://127.0.0.1:3128`; nil uses no proxy (environment ignored).
    public var proxy: String? = nil
    /// Where persistent state lives for `default` sessions (cookies, resume data).
    public var stateDirectory: String? = nil
    /// Where download tasks write their files while they run. nil: the session's
    /// private partial directory (the XDG state directory for default sessions, a temporary
    /// directory for ephemeral ones). Set it to the directory the files will end up in, and a
    /// download's bytes go to a hidden `.NAME.ttpart` there, so moving the finished file into
    /// place is a rename on the same file system rather than a copy.
    public var downloadDirectory: String? = nil
    /// Record each hop's request headers as libcurl sent them (Host, User-Agent, Range, …)
    /// in its transaction metrics, instead of only the headers the request set. Off by
    /// default: it turns on libcurl's verbose callback for every transfer (a small cost per
    /// request). The CLI turns it on for `--har` and the monitor.
    public var recordsSentRequestHeaders = false
    /// libcurl's verbose trace (connection info, request and response heads), one line at a
    /// time on the transfer thread (keep it quick), credentials redacted. `--trace`.
    public var trace: TransferTrace? = nil
    /// How long, in seconds, the transfer thread may hold delegate callbacks that nothing
    /// waits for (progress, download hand-overs, completions, metrics) so that it hands them
    /// to the delegate queue together (on a list of small files, one wake-up of the delegate
    /// queue per file costs CPU, and on two cores takes the core a local server needs). 0, the default, hands them over at the end of every loop turn.
    /// Callbacks something waits for (a response disposition, a redirect, a challenge, a new
    /// body stream, data for a data delegate, a cancel's resume data, the completion of a task
    /// with a completion handler and so of every async call) are never held, nor is
    /// anything once no transfer is left. Negative or not a number counts as 0; at most an hour.
    /// With an interval, a task started from inside such a batch of callbacks begins once the
    /// batch has run (DECISIONS 175): a callback must not wait for it to begin.
    public var deliveryCoalescingInterval: TimeInterval = 0

    /// The environment a background session finds the daemon's directories in
    /// (`XDG_RUNTIME_DIR`, `XDG_STATE_HOME`, `HOME`): the process's unless set, so tests use
    /// private directories and never the developer's daemon.
    var backgroundEnvironment: [String: String]? = nil

    /// The system's CA bundle and directory in place of libcurl's built-in ones (nil): tests
    /// prove with their own which of the two a session reads (`TrustStore.bundleToParse`).
    var systemTrustLocations: TrustStore.SystemTrustLocations? = nil

    /// The round trip from which an HTTP/2 host gets more streams than connections
    /// (`DistantHosts.noteRoundTrip`); tests set 0 to widen every host, even on loopback.
    var multiplexWideningRTT: TimeInterval = 0.002

    public init(kind: SessionKind) { self.kind = kind }

    public static var `default`: TransferConfiguration { TransferConfiguration(kind: .default) }
    public static var ephemeral: TransferConfiguration { TransferConfiguration(kind: .ephemeral) }
    /// Its download tasks and file uploads run in the per-user daemon (DECISIONS 131).
    public static func background(withIdentifier id: String) -> TransferConfiguration {
        TransferConfiguration(kind: .background(identifier: id))
    }
}

public enum TLSVersion: String, Sendable, Equatable, Comparable, CaseIterable {
    case v1_0 = "TLSv1.0", v1_1 = "TLSv1.1", v1_2 = "TLSv1.2", v1_3 = "TLSv1.3"
    public static func < (a: TLSVersion, b: TLSVersion) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
