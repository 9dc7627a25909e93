import Foundation
import TransferKit

/// What to run, whether it came from the command line, a job file or the demo.
public struct RunPlan: Sendable, Equatable {
    public var sessions: [SessionPlan]
    /// Absolute directory where finished downloads go.
    public var outputDirectory: String
    public var csv: String?
    public var har: String?
    /// `--force`: exports may replace an existing file.
    public var replaceExports = false
    /// `--clobber` / `--no-clobber`; by default complete files are skipped, others kept apart.
    public var existingFiles: ExistingFiles = .keepBoth
    /// `--[no-]content-disposition`: a finished download takes the server's proposed name.
    public var usesContentDisposition = true
    /// `-c/--cookie-jar FILE`: where the run's cookies are written at the end.
    public var cookieJar: String? = nil

    public init(sessions: [SessionPlan], outputDirectory: String, csv: String? = nil, har: String? = nil) {
        self.sessions = sessions
        self.outputDirectory = outputDirectory
        self.csv = csv
        self.har = har
    }
}

public struct SessionPlan: Sendable, Equatable {
    public var name: String
    public var kind: Options.SessionChoice = .default
    public var maxConnectionsPerHost = 6
    public var requestTimeout: Double = 60
    public var resourceTimeout: Double = 7 * 24 * 3600
    public var headers: [HTTPHeader] = []
    public var caFile: String? = nil
    /// `--pinnedpubkey`.
    public var pinnedPublicKeys: String? = nil
    /// `-k`: no certificate verification (marked wherever a transaction shows).
    public var insecure = false
    /// `--cache`: the kind's cache (TransferURLCache.forKind), with this policy.
    public var cache = false
    public var cachePolicy: RequestCachePolicy = .useProtocolCachePolicy
    /// `--cert`/`--key`: the client certificate presented to servers that ask for one.
    public var clientCertificate: ClientCertificate? = nil
    /// `--location-trusted`: credential headers may follow redirects to other hosts.
    public var locationTrusted = false
    /// `--compressed`: ask for content codings and decode (TransferKit's default; not curl's).
    public var compressed = false
    /// `--max-filesize`: the most bytes a body may have (0: no limit). Given at all, it
    /// replaces the decompression-bomb ratio guard: the user chose the bound, as curl's and
    /// wget's users do with their size limits.
    public var maxFileSize: Int64? = nil
    /// `--max-redirs`: -1 follows any number.
    public var maxRedirects = RedirectPolicy.maximumRedirects
    /// `-u` (asked for before the run when the password was not given), its scheme, `--netrc`.
    public var credential: TransferCredential? = nil
    public var httpAuthentication: HTTPAuthentication = .basic
    public var netrc: NetrcUse? = nil
    /// `-b FILE`: cookie files read when the session starts.
    public var cookieFiles: [String] = []
    public var tasks: [TaskPlan] = []
    /// More downloads, after `tasks`: URLs of `--input-file`, already validated, kept as text
    /// and made into tasks only when they start (a URL value costs several times its text;
    /// long lists).
    public var downloadURLs: [String] = []

    public init(name: String) { self.name = name }

    public var configuration: TransferConfiguration {
        var c: TransferConfiguration = kind == .ephemeral ? .ephemeral : .default
        c.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        c.timeoutIntervalForRequest = requestTimeout
        c.timeoutIntervalForResource = resourceTimeout
        c.httpAdditionalHeaders = headers
        c.additionalTrustedCAFile = caFile
        c.pinnedPublicKeys = pinnedPublicKeys
        c.allowsInsecureTLS = insecure
        c.clientCertificateFile = clientCertificate?.file
        c.clientKeyFile = clientCertificate?.key
        c.clientKeyPassword = clientCertificate?.password
        c.redirectsKeepCredentials = locationTrusted
        c.httpAcceptsContentEncoding = compressed
        c.httpMaximumRedirects = maxRedirects < 0 ? nil : maxRedirects
        if let maxFileSize {
            c.maximumContentLength = maxFileSize > 0 ? maxFileSize : nil
            c.maximumDecodedRatio = nil
        }
        c.credential = credential
        c.httpAuthentication = httpAuthentication
        c.netrc = netrc
        c.cookieFiles = cookieFiles
        if cache {
            c.urlCache = TransferURLCache.forKind(c.kind)
            c.requestCachePolicy = cachePolicy
        }
        return c
    }
}

public struct TaskPlan: Sendable, Equatable {
    public var kind: TaskKind
    public var url: URL
    public var method: String
    /// The body of an upload.
    public var file: String?
    /// Or a form (`--form`): the upload is a multipart/form-data POST of these fields.
    public var form: [FormField] = []
    /// Demo scripting: suspend after this many seconds, resume after `resumeAfter` more.
    public var suspendAfter: Double? = nil
    public var resumeAfter: Double? = nil

    public init(kind: TaskKind, url: URL, method: String? = nil, file: String? = nil) {
        self.kind = kind
        self.url = url
        self.method = method ?? (kind == .upload ? "PUT" : "GET")
        self.file = file
    }
}

extension SessionPlan {
    /// A session with the command line's session settings: its kind, limits, time-outs, CA,
    /// cache, redirect and size limits, compression. A job file's sessions start from these too.
    init(name: String, options o: Options) {
        self.init(name: name)
        kind = o.session
        maxConnectionsPerHost = o.maxConnectionsPerHost
        requestTimeout = o.requestTimeout
        resourceTimeout = o.resourceTimeout
        caFile = o.caCertificate
        cache = o.cache
        cachePolicy = o.cachePolicy
        locationTrusted = o.locationTrusted
        compressed = o.compressed
        maxFileSize = o.maxFileSize
        maxRedirects = o.maxRedirects
    }
}

extension RunPlan {
    /// The plan for `transfertop [OPTIONS] URL...`: one session, every URL a download (or an
    /// upload of `--upload FILE`). `urls` already includes those from `--input-file`.
    public static func from(_ o: Options, urls: [URL], outputDirectory: String) throws(UsageError) -> RunPlan {
        var s = SessionPlan(name: o.session.rawValue, options: o)
        s.headers = try o.headers.map(HeaderParsing.parse)
        s.applySecurity(o, credential: try o.user?.credential())
        s.tasks = urls.map { url in
            if !o.form.isEmpty {
                var task = TaskPlan(kind: .upload, url: url, method: "POST")
                task.form = o.form
                return task
            }
            return o.upload == nil ? TaskPlan(kind: .download, url: url) : TaskPlan(kind: .upload, url: url, file: o.upload)
        }
        var plan = RunPlan(sessions: [s], outputDirectory: outputDirectory, csv: o.csv, har: o.har)
        plan.existingFiles = o.existingFiles
        plan.usesContentDisposition = o.contentDisposition
        plan.cookieJar = o.cookieJar
        return plan
    }
}

extension SessionPlan {
    /// The command line's trust, credential and cookie options (`-k`, `--pinnedpubkey`,
    /// `--cert/--key`, `-u` with its scheme, `--netrc`, `-b`): the same for the URLs' session
    /// and for every session of a `--job` file (DECISIONS 111), so a pin or a credential given
    /// on the command line is never silently dropped. `credential` is `-u`'s, asked once.
    mutating func applySecurity(_ o: Options, credential: TransferCredential?) {
        pinnedPublicKeys = o.pinnedPublicKeys
        insecure = o.insecure
        clientCertificate = o.clientCertificate
        self.credential = credential
        httpAuthentication = o.httpAuthentication
        netrc = o.netrc
        cookieFiles = o.cookieFiles
        // `-b NAME=VALUE`: a Cookie header of the session, so it follows the credential-header
        // rule on redirects (the task's origin only, unless --location-trusted), as curl's.
        guard !o.cookieStrings.isEmpty else { return }
        let value = o.cookieStrings.joined(separator: "; ")
        if let i = headers.firstIndex(where: { $0.name.caseInsensitiveCompare("Cookie") == .orderedSame }) {
            headers[i] = HTTPHeader(headers[i].name, headers[i].value + "; " + value)
        } else {
            headers.append(HTTPHeader("Cookie", value))
        }
    }
}

extension RunPlan {
    /// Every task's URL and every streamed list URL, in plan order: what a background
    /// submission journals as its tasks.
    package var urlStrings: [String] { sessions.flatMap { $0.tasks.map(\.url.absoluteString) + $0.downloadURLs } }
}

package enum HeaderParsing {
    /// `Name: value` → a header that may be sent. The message never quotes the value: it is
    /// often a credential.
    package static func parse(_ text: String) throws(UsageError) -> HTTPHeader {
        guard let colon = text.firstIndex(of: ":") else {
            throw UsageError("bad header '\(SafeQuote.quote(text, limit: 20))' (expected 'Name: value')")
        }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let header = HTTPHeader(name, value)
        if let problem = HeaderValidation.problem(header) { throw UsageError("bad header: \(problem)") }
        return header
    }
}

/// Reads `--input-file` lines: one URL a line, blank lines and `#` comments skipped.
public enum InputFile {
    public static func urls(in text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}
