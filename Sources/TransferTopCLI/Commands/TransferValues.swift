import TransferKit
import TransferTopDaemon
import TransferTopRun

/// The transfer options as the command line gave them: text, flags and lists, before any check.
/// argument-parser's `TransferOptions` and `QuickRunLine` both read a command line into one,
/// so `options(urls:)` makes the same `Options` and the same messages from either.
struct TransferValues: Equatable, Sendable {
    var inputFiles: [String] = []
    var outputDirectory: String?
    var existing: ExistingFilesFlag?
    var session: String?
    var maxConnectionsPerHost: String?
    var requestTimeout: String?
    var resourceTimeout: String?
    var headers: [String] = []
    var userAgent: String?
    var compressed: Bool = false
    var maxFilesize: String?
    var maxRedirs: String?
    var contentDisposition: Bool = true
    var locationTrusted: Bool = false
    var user: String?
    var authentication: AuthenticationFlag?
    var cookie: [String] = []
    var cookieJar: String?
    var netrc: Bool = false
    var netrcFile: String?
    var cacert: String?
    var cache: Bool = false
    var cachePolicy: String?
    var insecure: Bool = false
    var pinnedpubkey: String?
    var cert: String?
    var key: String?
    var upload: String?
    var segments: String?
    var segmentSize: String?
    var form: [String] = []
    var job: String?
    var csv: String?
    var har: String?
    var summary: String?
    var slo: String?
    var force: Bool = false
    var theme: String?
    var noTUI: Bool = false
    var progress: Bool = false
    var fps: String?
    var yes: Bool = false
    var debug: Bool = false
    var logFile: String?
    var logLevel: String?
    var trace: Bool = false
    var prometheus: String?
    var otlp: String?
    var background: String?

    /// The plain value the rest of the program uses, every value checked (exit 2 otherwise).
    func options(urls: [String]) throws(UsageError) -> Options {
        var o = Options()
        o.urls = urls
        o.inputFiles = inputFiles
        if let v = outputDirectory { o.outputDirectory = try OptionValues.nonEmpty(v, "--output-dir") }
        if let existing { o.existingFiles = existing.choice }
        if let v = session { o.session = try OptionValues.session(v) }
        if let v = maxConnectionsPerHost { o.maxConnectionsPerHost = try OptionValues.integer(v, "--max-connections-per-host", range: OptionBounds.connectionsPerHost) }
        if let v = requestTimeout { o.requestTimeout = try OptionValues.seconds(v, "--request-timeout") }
        if let v = resourceTimeout { o.resourceTimeout = try OptionValues.seconds(v, "--resource-timeout") }
        o.headers = headers
        if let v = userAgent { o.userAgent = try OptionValues.userAgent(v) }
        o.locationTrusted = locationTrusted
        if let v = user { o.user = try UserOption.parse(v) }
        if let authentication { o.httpAuthentication = authentication.scheme }
        if authentication != nil && o.user == nil && !netrc && netrcFile == nil {
            throw UsageError("--\(authentication!.rawValue) needs credentials: -u USER[:PASSWORD], --netrc or --netrc-file")
        }
        if let v = netrcFile { o.netrc = NetrcUse(file: try OptionValues.nonEmpty(v, "--netrc-file")) } else if netrc { o.netrc = NetrcUse() }
        o.compressed = compressed
        if let v = maxFilesize { o.maxFileSize = try OptionValues.byteSize(v, "--max-filesize", range: 0...(1 << 60)) }
        if let v = maxRedirs { o.maxRedirects = try OptionValues.integer(v, "--max-redirs", range: -1...Int(Int32.max)) }
        o.contentDisposition = contentDisposition
        if let v = cacert { o.caCertificate = try OptionValues.nonEmpty(v, "--cacert") }
        if let v = pinnedpubkey { o.pinnedPublicKeys = try OptionValues.pins(v) }
        if let v = cert { o.clientCertificate = try ClientCertificate.parse(v, key: key) } else if key != nil {
            throw UsageError("--key needs --cert (the certificate the key belongs to)")
        }
        for v in cookie {
            if v.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) { throw UsageError("--cookie must not contain CR, LF or NUL") }
            if v.contains("=") { o.cookieStrings.append(v) } else { o.cookieFiles.append(try OptionValues.nonEmpty(v, "--cookie")) }
        }
        if let v = cookieJar { o.cookieJar = try OptionValues.nonEmpty(v, "--cookie-jar") }
        o.insecure = insecure
        o.cache = cache
        if let v = cachePolicy {
            guard let p = RequestCachePolicy(rawValue: v) else {
                throw UsageError("--cache-policy takes \(RequestCachePolicy.allCases.map(\.rawValue).joined(separator: ", ")), not '\(SafeQuote.quote(v))'")
            }
            guard cache else { throw UsageError("--cache-policy needs --cache") }
            o.cachePolicy = p
        }
        if let v = upload { o.upload = try OptionValues.nonEmpty(v, "--upload") }
        o.form = try form.map { v throws(UsageError) in try FormField.parse(v) }
        if o.upload != nil && !o.form.isEmpty { throw UsageError("--upload and --form cannot be combined (one request body per task)") }
        if o.upload == "-" {
            if urls.count != 1 || !o.inputFiles.isEmpty { throw UsageError("--upload - sends standard input once: give exactly one URL") }
            o.noTUI = true  // standard input carries the body, not keys
        }
        if let v = segments { o.segments = try OptionValues.integer(v, "--segments", range: OptionBounds.segments) }
        if let v = segmentSize { o.segmentSize = try OptionValues.byteSize(v, "--segment-size", range: OptionBounds.segmentSize) }
        try SegmentedUploadOptions.check(o)
        if let v = job { o.job = try OptionValues.nonEmpty(v, "--job") }
        if let v = csv { o.csv = try OptionValues.nonEmpty(v, "--csv") }
        if let v = har { o.har = try OptionValues.nonEmpty(v, "--har") }
        o.force = force
        if let v = summary { o.summary = try OptionValues.summary(v) }
        if let v = slo { o.slo = try OptionValues.budgets(v) }
        if let v = theme { o.theme = try OptionValues.nonEmpty(v, "--theme") }
        o.noTUI = o.noTUI || noTUI  // already on for --upload -
        o.progress = progress
        if let v = fps { o.fps = try OptionValues.integer(v, "--fps", range: OptionBounds.fps) }
        o.debug = debug
        o.yes = yes
        if let v = logFile { o.logFile = try OptionValues.nonEmpty(v, "--log-file") }
        if let v = logLevel { o.logLevel = try OptionValues.logLevel(v) }
        o.trace = trace
        if let v = prometheus { o.prometheus = try OptionValues.listenAddress(v, "--prometheus") }
        if let v = otlp { o.otlp = try OptionValues.otlp(v) }
        if let v = background {
            if SSHDestination.isRemote(v) {
                // Another host's daemon, named as `attach ssh://host/NAME` names it.
                let (host, name) = try SSHDestination.hostAndSession(v, "--background")
                guard let name else {
                    throw UsageError("--background: ssh://[user@]host[:port]/NAME names the session after the host")
                }
                o.background = name
                o.backgroundHost = host.description
            } else {
                o.background = try BackgroundName.check(v, "--background")
            }
        }
        return o
    }
}
