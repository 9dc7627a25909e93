import ArgumentParser
import TransferKit
import TransferTopDaemon
import TransferTopRun

/// The options of a run (and of the demo), declared for argument-parser. Declared on the root
/// command so `transfertop --help` lists them and they may stand before or after the URLs.
///
/// Every value is taken as text and turned into `Options` by `options(urls:)` with our own
/// messages and bounds (`OptionValues`). Values are read `.unconditional`ly, as the
/// hand-written parser did: `--request-timeout -5` is a bad timeout, not a missing value.
struct TransferOptions: ParsableArguments {
    @Option(name: [.customShort("i"), .customLong("input-file")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("More URLs, one per line ('-' = stdin; '#' comments).", valueName: "FILE"), completion: .file())
    var inputFiles: [String] = []

    @Option(name: [.customShort("o"), .customLong("output-dir")], parsing: .unconditional,
            help: ArgumentHelp("Where finished downloads go (default: the current directory).", valueName: "DIR"),
            completion: .directory)
    var outputDirectory: String?

    @Flag(exclusivity: .chooseLast, help: "What to do with a download whose file name exists (the last one given wins).")
    var existing: ExistingFilesFlag?

    @Option(parsing: .unconditional, help: ArgumentHelp("Configuration kind of the session: default or ephemeral (default: default).", valueName: "KIND"),
            completion: .list(["default", "ephemeral"]))
    var session: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Connections per host, 1-1000 (default: 6).", valueName: "N"))
    var maxConnectionsPerHost: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Idle timeout (default: 60).", valueName: "SECONDS"))
    var requestTimeout: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Whole-task timeout (default: 7 days).", valueName: "SECONDS"))
    var resourceTimeout: String?

    @Option(name: [.customShort("H"), .customLong("header")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Extra request header, repeatable.", valueName: "'Name: value'"))
    var headers: [String] = []

    @Option(name: [.customShort("A"), .customLong("user-agent")], parsing: .unconditional,
            help: ArgumentHelp("User-Agent header to send (default: transfertop/VERSION libcurl/VERSION; '' sends none).", valueName: "TEXT"))
    var userAgent: String?

    @Flag(help: "Ask for gzip, deflate, br or zstd and save the decoded body. Without it, as curl, none is asked for and a body is saved as it came (a server that compresses anyway gives compressed bytes).")
    var compressed = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Refuse a body over SIZE bytes (K, M or G; 0: no limit), as curl: checked against Content-Length and the bytes saved (decoded ones with --compressed). Given, it replaces the decompression-bomb guard of --compressed (decoded over 500 times the bytes received, past 10 MiB).", valueName: "SIZE"))
    var maxFilesize: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Follow at most N redirects (default: 16; 0: none; -1: no limit).", valueName: "N"))
    var maxRedirs: String?

    @Flag(inversion: .prefixedNo, help: "Name a download after the server's Content-Disposition file name (made safe) when it sends one, as aria2 does; otherwise after the URL.")
    var contentDisposition = true

    @Flag(help: "Send Authorization/Cookie headers and -u credentials to other hosts a redirect names too (never from https to http).")
    var locationTrusted = false

    @Option(name: [.customShort("u"), .customLong("user")], parsing: .unconditional,
            help: ArgumentHelp("USER:PASSWORD for HTTP authentication, sent only to each URL's own origin (unless --location-trusted). Without ':PASSWORD' the password is asked on the terminal, not echoed.", valueName: "USER[:PASSWORD]"))
    var user: String?

    @Flag(help: "The scheme -u credentials are sent with (default --basic, as curl; --digest and --anyauth answer the server's 401).")
    var authentication: AuthenticationFlag?

    @Option(name: [.customShort("b"), .customLong("cookie")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("As curl's -b: 'NAME=VALUE[; NAME2=VALUE2]' sends those cookies (to each URL's own origin only); a FILE (no '=') reads cookies from a Netscape cookies.txt or Set-Cookie file. Repeat for more.", valueName: "DATA|FILE"))
    var cookie: [String] = []

    @Option(name: [.customShort("c"), .customLong("cookie-jar")], parsing: .unconditional,
            help: ArgumentHelp("Write the run's cookies to FILE at the end, in the Netscape format curl and wget read, readable only by you (as curl's -c).", valueName: "FILE"),
            completion: .file())
    var cookieJar: String?

    @Flag(help: "Take credentials for each host from ~/.netrc (as curl --netrc; a redirect to another host uses that host's entry, if any).")
    var netrc = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Take credentials from FILE instead of ~/.netrc (implies --netrc).", valueName: "FILE"),
            completion: .file())
    var netrcFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Also trust the CA certificate(s) in FILE (PEM).", valueName: "FILE"),
            completion: .file())
    var cacert: String?

    @Flag(help: "Use an HTTP cache (off by default, as curl has none): fresh responses are served without a request, stale ones revalidated (a 304 keeps the cached body). Default sessions share $XDG_CACHE_HOME/transfertop; --session ephemeral keeps it in memory.")
    var cache = false

    @Option(name: .customLong("cache-policy"), parsing: .unconditional,
            help: ArgumentHelp("With --cache: useProtocolCachePolicy (default), reloadIgnoringLocalCacheData, returnCacheDataElseLoad or returnCacheDataDontLoad (URLRequest's cache policies).", valueName: "NAME"),
            completion: .list(RequestCachePolicy.allCases.map(\.rawValue)))
    var cachePolicy: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")],
          help: "Do not verify https certificates or host names (as curl -k): anyone on the path can read and change the transfer. Marked in red in the monitor and recorded in CSV (tls_verified) and HAR (_tlsVerified).")
    var insecure = false

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Also require the server's public key to match one of these SHA-256 pins (base64, as curl's --pinnedpubkey; the chain is still verified).", valueName: "sha256//HASH[;sha256//HASH...]"))
    var pinnedpubkey: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Present this client certificate (PEM) to https servers that ask for one, as curl's --cert; ':PASSWORD' after the file name unlocks its key.", valueName: "FILE[:PASSWORD]"),
            completion: .file())
    var cert: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The client certificate's private key (PEM), when it is not in --cert's file.", valueName: "FILE"),
            completion: .file())
    var key: String?

    @Option(name: [.customShort("T"), .customLong("upload")], parsing: .unconditional,
            help: ArgumentHelp("Upload FILE to each URL instead of downloading (PUT, as curl -T). '-' reads standard input as it arrives, sent chunked, to one URL, in line mode.", valueName: "FILE"),
            completion: .file())
    var upload: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("With -T FILE and one URL: send FILE as segments, at most N PUTs at once, each with Content-Range and Content-Digest; a failed segment is retried later; a rerun sends only the missing ones (1-64).", valueName: "N"))
    var segments: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The size of each --segments segment: bytes, or with K, M or G (1024-based; default 8M, at least 64K).", valueName: "SIZE"))
    var segmentSize: String?

    @Option(name: [.customShort("F"), .customLong("form")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST a multipart/form-data field to each URL, as curl's -F: NAME=VALUE, NAME=@FILE[;type=T][;filename=N] (the file streamed), NAME=<FILE (its content as the value). Repeat for more fields.", valueName: "FIELD"))
    var form: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("A job file: several sessions with their configurations and tasks.", valueName: "FILE"),
            completion: .file(extensions: ["toml"]))
    var job: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Write per-transaction metrics as CSV when the run ends.", valueName: "FILE"),
            completion: .file())
    var csv: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Write the run as HAR 1.2 when it ends.", valueName: "FILE"),
            completion: .file())
    var har: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Line mode's end-of-run summary: tasks (a row per task, the default), hosts (per host and protocol: hops, errors and p50/p90/p99/max of dns, connect, tls, ttfb and total), all (both), or json (the per-host numbers as JSON on stdout; state lines go to stderr).", valueName: "MODE"),
            completion: .list(SummaryMode.allCases.map(\.rawValue)))
    var summary: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Budgets checked at the end of the run, comma-separated: PHASE.pNN<LIMIT or PHASE.max<LIMIT (PHASE: dns, connect, tls, ttfb, total; LIMIT in ms, s or us) and errors<N%; 'host=NAME:' before one limits it to a host. A breach is a line on stderr and exit status 3.", valueName: "BUDGETS"))
    var slo: String?

    @Flag(help: "Let --csv/--har replace an existing file.")
    var force = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Colour theme, a name or a file (default: default).", valueName: "NAME|PATH"))
    var theme: String?

    @Flag(name: .customLong("no-tui"), help: "Line mode; automatic when stdout is not a terminal.")
    var noTUI = false

    @Flag(help: "In line mode into a pipe, print a progress line every second (a terminal always gets one, redrawn in place).")
    var progress = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Monitor frame rate cap, 1-120 (default: 10).", valueName: "N"))
    var fps: String?

    @Flag(help: "Do not ask before destructive monitor keys (cancel, cancel a session, quit losing work).")
    var yes = false

    @Flag(help: "Show the monitor's frame time in its header (for tuning the renderer).")
    var debug = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Append diagnostics to FILE (mode 0600; secrets redacted).", valueName: "FILE"),
            completion: .file())
    var logFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("trace, debug, info, notice, warning, error or critical (default: info with --log-file).", valueName: "LEVEL"),
            completion: .list(["trace", "debug", "info", "notice", "warning", "error", "critical"]))
    var logLevel: String?

    @Flag(help: "Log libcurl's verbose trace (request and response heads, connection notes; credentials redacted).")
    var trace = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Serve Prometheus metrics at http://[HOST:]PORT/metrics during the run (HOST default 127.0.0.1).", valueName: "[HOST:]PORT"))
    var prometheus: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Export each task as a trace (a span per task, per hop, per phase) to the OpenTelemetry collector at URL over OTLP/HTTP (/v1/traces is appended).", valueName: "URL"))
    var otlp: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Hand the transfers to the background daemon's session NAME and return at once, printing the task ids; they go on after this shell ends (see 'status', 'wait', 'attach', 'daemon'). ssh://[user@]host[:port]/NAME hands them to that host's daemon through ssh (paths are that host's, absolute).", valueName: "NAME"))
    var background: String?

    /// The values as given, for the checks of `TransferValues.options(urls:)`.
    var values: TransferValues {
        TransferValues(
            inputFiles: inputFiles,
            outputDirectory: outputDirectory,
            existing: existing,
            session: session,
            maxConnectionsPerHost: maxConnectionsPerHost,
            requestTimeout: requestTimeout,
            resourceTimeout: resourceTimeout,
            headers: headers,
            userAgent: userAgent,
            compressed: compressed,
            maxFilesize: maxFilesize,
            maxRedirs: maxRedirs,
            contentDisposition: contentDisposition,
            locationTrusted: locationTrusted,
            user: user,
            authentication: authentication,
            cookie: cookie,
            cookieJar: cookieJar,
            netrc: netrc,
            netrcFile: netrcFile,
            cacert: cacert,
            cache: cache,
            cachePolicy: cachePolicy,
            insecure: insecure,
            pinnedpubkey: pinnedpubkey,
            cert: cert,
            key: key,
            upload: upload,
            segments: segments,
            segmentSize: segmentSize,
            form: form,
            job: job,
            csv: csv,
            har: har,
            summary: summary,
            slo: slo,
            force: force,
            theme: theme,
            noTUI: noTUI,
            progress: progress,
            fps: fps,
            yes: yes,
            debug: debug,
            logFile: logFile,
            logLevel: logLevel,
            trace: trace,
            prometheus: prometheus,
            otlp: otlp,
            background: background)
    }

    /// The plain value the rest of the program uses, every value checked (exit 2 otherwise).
    func options(urls: [String]) throws(UsageError) -> Options { try values.options(urls: urls) }
}

/// `--clobber` / `--no-clobber`: two spellings of one setting, the last one given wins.
///
/// TextOutputStreamable, writing the case's name as `"\(value)"` would: argument-parser names
/// each case's key by interpolating it, and without a conformance the first check of four
/// (this one) fails, each check a scan of every conformance record in the binary at start-up.
enum ExistingFilesFlag: String, EnumerableFlag, TextOutputStreamable {
    case clobber, noClobber

    func write<Target: TextOutputStream>(to target: inout Target) { target.write(rawValue) }

    var choice: ExistingFiles { self == .clobber ? .replace : .skip }

    static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .clobber: "Replace an existing file of the same name (atomically)."
        case .noClobber: "Keep any existing file of the same name; do not download it."
        }
    }
}

/// `--basic` / `--digest` / `--anyauth`: one of them (argument-parser refuses two).
enum AuthenticationFlag: String, EnumerableFlag, TextOutputStreamable {
    case basic, digest, anyauth

    /// The case's name, as `ExistingFilesFlag`'s.
    func write<Target: TextOutputStream>(to target: inout Target) { target.write(rawValue) }

    var scheme: HTTPAuthentication {
        switch self {
        case .basic: .basic
        case .digest: .digest
        case .anyauth: .any
        }
    }

    static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .basic: "Send -u credentials with HTTP Basic, with the first request (curl's default)."
        case .digest: "Send -u credentials only as an answer to a Digest challenge (the password is not sent)."
        case .anyauth: "Answer whichever challenge the server makes (Basic or Digest); the first request goes without credentials."
        }
    }
}
