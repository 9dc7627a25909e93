import Foundation
import TransferKit

/// Everything the command line says, before anything is opened or checked on disk
/// (parse and validate first, then run).
public struct Options: Sendable, Equatable, Codable {
    public enum SessionChoice: String, Sendable, Equatable, Codable { case `default`, ephemeral }

    public var urls: [String] = []
    public var inputFiles: [String] = []
    public var outputDirectory: String? = nil
    public var session: SessionChoice = .default
    public var maxConnectionsPerHost = 6
    public var requestTimeout: Double = 60
    public var resourceTimeout: Double = 7 * 24 * 3600
    public var headers: [String] = []
    public var caCertificate: String? = nil
    /// `--pinnedpubkey`: checked `sha256//BASE64` pins, `;`-separated.
    public var pinnedPublicKeys: String? = nil
    /// `--cache`, `--cache-policy NAME` (DECISIONS 104).
    public var cache = false
    public var cachePolicy: RequestCachePolicy = .useProtocolCachePolicy
    /// `-k/--insecure`.
    public var insecure = false
    /// `--cert FILE[:PASSWORD]` and `--key FILE`.
    public var clientCertificate: ClientCertificate? = nil
    public var upload: String? = nil
    /// `-u USER[:PASSWORD]`: the password is nil until asked (`Preflight.askPassword`).
    public var user: UserOption? = nil
    public var httpAuthentication: HTTPAuthentication = .basic
    /// `-b/--cookie`: NAME=VALUE strings (sent as a Cookie header) and files (read at start).
    public var cookieStrings: [String] = []
    public var cookieFiles: [String] = []
    /// `-c/--cookie-jar FILE`.
    public var cookieJar: String? = nil
    /// `--netrc` / `--netrc-file FILE`.
    public var netrc: NetrcUse? = nil
    /// `--segments N`: `--upload FILE` goes as segments, at most N at once.
    public var segments: Int? = nil
    /// `--segment-size`: bytes per segment (nil: the default, 8 MiB).
    public var segmentSize: Int64? = nil
    /// `-F/--form` fields: each URL gets a multipart/form-data POST of them.
    public var form: [FormField] = []
    public var job: String? = nil
    public var csv: String? = nil
    public var har: String? = nil
    public var theme = "default"
    public var noTUI = false
    /// `--progress`: line mode into a pipe prints a progress line every second.
    public var progress = false
    /// `--location-trusted`: credential headers follow redirects to other hosts (not to http).
    public var locationTrusted = false
    /// `--compressed`: ask for content codings and save the decoded body (curl's flag).
    public var compressed = false
    /// `--max-filesize`: nil when not given, 0 for no limit (`SessionPlan.maxFileSize`).
    public var maxFileSize: Int64? = nil
    /// `--max-redirs`: -1 follows any number.
    public var maxRedirects = 16
    /// `--[no-]content-disposition`: name downloads after the server's proposed name.
    public var contentDisposition = true
    /// `--summary MODE`: what line mode prints when the run ends; nil is `tasks`. Optional,
    /// as `slo` is, so a submission journaled by a version without them still decodes.
    public var summary: SummaryMode? = nil
    /// `--slo BUDGETS`: the text, checked where it was read (`OptionValues.budgets`).
    public var slo: String? = nil
    /// `--force`: `--csv`/`--har` may replace an existing file.
    public var force = false
    /// `--clobber` / `--no-clobber` (the last one given wins).
    public var existingFiles: ExistingFiles = .keepBoth
    public var fps = 10
    /// `--debug`: the monitor's header shows the frame time.
    public var debug = false
    /// `--yes`: the monitor's destructive keys act without asking.
    public var yes = false
    /// `-A`/`--user-agent`: nil sends the default (`transfertop/VERSION libcurl/X.Y.Z`), an
    /// empty text sends none (as curl). A `-H 'User-Agent: …'` wins over both.
    public var userAgent: String? = nil
    /// `--log-file`, `--log-level`, `--trace`: diagnostics through swift-log (Observability/).
    public var logFile: String? = nil
    public var logLevel: String? = nil
    public var trace = false
    /// `--prometheus [HOST:]PORT`.
    public var prometheus: ListenAddress? = nil
    /// `--otlp URL`: each finished task as a trace to this OpenTelemetry collector.
    public var otlp: String? = nil
    /// `--background NAME`: submit to the daemon's session NAME instead of running here.
    public var background: String? = nil
    /// `--background ssh://[user@]host[:port]/NAME`: that host's daemon (the address without
    /// the name). Never sent to a daemon.
    public var backgroundHost: String? = nil

    public init() {}
}

/// `--summary`: the per-task table (unchanged default), the per-host percentile table, both,
/// or JSON (DECISIONS 190).
public enum SummaryMode: String, Sendable, Equatable, Codable, CaseIterable {
    case tasks, hosts, all, json

    var showsTasks: Bool { self == .tasks || self == .all }
    var showsHosts: Bool { self == .hosts || self == .all }
}

/// Where a server of ours listens (`--prometheus`).
public struct ListenAddress: Sendable, Equatable, Codable {
    public var host: String
    public var port: Int
}

/// A usage error: one line, no trailing period; the caller adds the `--help` pointer.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
    /// The whole message printed on stderr.
    public var message: String { "transfertop: \(reason)\nsee 'transfertop --help'" }
}
