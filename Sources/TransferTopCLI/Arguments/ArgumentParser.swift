import Foundation
import TransferModel

/// The hand-written command-line parser: a pure function from arguments to a `Command`
/// (issue 5 contract). Hand-written so the contract, the errors and `--help` are exactly ours.
public enum ArgumentParser {
    /// Parses arguments *without* the program name.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        if arguments.first == "clean" { return try parseClean(arguments.dropFirst()) }
        var options = Options()
        var isDemo = false
        var rest = arguments[...]
        var positionalOnly = false
        while let arg = rest.popFirst() {
            if positionalOnly || arg == "-" || !arg.hasPrefix("-") {
                if arg == "demo", !positionalOnly, options.urls.isEmpty, !isDemo { isDemo = true; continue }
                options.urls.append(arg)
                continue
            }
            if arg == "--" { positionalOnly = true; continue }
            if arg == "--help" || arg == "-h" { return .help }
            let (name, inlineValue) = split(arg)
            guard let spec = OptionSpec.find(name) else { throw UsageError("unknown option '\(unknownOptionName(name))'") }
            if !spec.takesValue {
                if inlineValue != nil { throw UsageError("option '\(name)' takes no value") }
                try apply(spec, value: "", to: &options)
                continue
            }
            guard let value = inlineValue ?? rest.popFirst() else { throw UsageError("option '\(name)' needs a value") }
            try apply(spec, value: value, to: &options)
        }
        try validate(options, isDemo: isDemo)
        return isDemo ? .demo(options) : .run(options)
    }

    /// How an unknown option is named in the error: `-uuser:secret` (curl's spelling) shows as
    /// `-u`, so a password glued to a short option is never echoed.
    static func unknownOptionName(_ name: String) -> String {
        SafeQuote.quote(name.hasPrefix("--") ? name : String(name.prefix(2)), limit: 40)
    }

    /// `clean [DIR] [--yes]` (issue 8; minimal until the parser becomes swift-argument-parser).
    static func parseClean(_ args: ArraySlice<String>) throws(UsageError) -> Command {
        var dir: String? = nil
        var delete = false
        for a in args {
            if a == "--yes" || a == "-y" { delete = true; continue }
            if a == "--help" || a == "-h" { return .help }
            if a.hasPrefix("-") { throw UsageError("unknown option '\(a)' for 'clean' (usage: transfertop clean [DIR] [--yes])") }
            if dir != nil { throw UsageError("'clean' takes one directory") }
            dir = a
        }
        return .clean(directory: dir, delete: delete)
    }

    /// `--name=value` → (`--name`, value); short options never take an inline `=`.
    static func split(_ arg: String) -> (String, String?) {
        guard arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") else { return (arg, nil) }
        return (String(arg[..<eq]), String(arg[arg.index(after: eq)...]))
    }

    static func validate(_ o: Options, isDemo: Bool) throws(UsageError) {
        if isDemo {
            if !o.urls.isEmpty { throw UsageError("'demo' takes no URLs") }
            if o.job != nil || !o.inputFiles.isEmpty { throw UsageError("'demo' cannot be combined with --job or --input-file") }
            return
        }
        if o.urls.isEmpty, o.inputFiles.isEmpty, o.job == nil {
            throw UsageError("no URLs given (pass URLs, --input-file FILE, --job FILE, or 'demo')")
        }
        if o.job != nil, o.upload != nil { throw UsageError("--upload cannot be combined with --job (put uploads in the job file)") }
        if o.inputFiles.filter({ $0 == "-" }).count > 1 { throw UsageError("'-' (stdin) can be given to --input-file only once") }
        for url in o.urls { try checkURL(url) }
        for h in o.headers { try checkHeader(h) }
    }

    /// A URL we can fetch today. The message quotes a short, redacted, escaped part of the
    /// text: it may be a line of a file given by mistake (`-i /etc/shadow`) or hold a password.
    @discardableResult
    static func checkURL(_ text: String, quoteLimit: Int = 60) throws(UsageError) -> URL {
        // The quote is built only for an error: this runs once per line of a long list.
        var shown: String { SafeQuote.quote(text, limit: quoteLimit) }
        guard let url = URLText.url(text), let scheme = url.scheme?.lowercased(), url.host != nil || scheme == "file" else {
            throw UsageError("not a URL: '\(shown)'")
        }
        // ftp and file are refused here rather than failing later as "unsupported" (until
        // the protocols issue adds them).
        let supported = ["http", "https"]
        if !supported.contains(scheme) {
            throw UsageError("unsupported scheme '\(SafeQuote.quote(scheme, limit: 16))' in '\(shown)' (use http or https)")
        }
        return url
    }

    static func checkHeader(_ h: String) throws(UsageError) {
        _ = try HeaderParsing.parse(h)
    }

    static func apply(_ spec: OptionSpec, value: String, to o: inout Options) throws(UsageError) {
        switch spec.key {
        case .inputFile: o.inputFiles.append(value)
        case .outputDir: o.outputDirectory = try nonEmpty(value, spec)
        case .session:
            guard let kind = Options.SessionChoice(rawValue: value) else {
                throw UsageError("--session must be 'default' or 'ephemeral', not '\(SafeQuote.quote(value, limit: 20))'")
            }
            o.session = kind
        case .maxConnections: o.maxConnectionsPerHost = try integer(value, spec, range: 1...1000)
        case .requestTimeout: o.requestTimeout = try seconds(value, spec)
        case .resourceTimeout: o.resourceTimeout = try seconds(value, spec)
        case .header: o.headers.append(value)
        case .cacert: o.caCertificate = try nonEmpty(value, spec)
        case .upload: o.upload = try nonEmpty(value, spec)
        case .job: o.job = try nonEmpty(value, spec)
        case .csv: o.csv = try nonEmpty(value, spec)
        case .har: o.har = try nonEmpty(value, spec)
        case .theme: o.theme = try nonEmpty(value, spec)
        case .noTUI: o.noTUI = true
        case .locationTrusted: o.locationTrusted = true
        case .force: o.force = true
        case .clobber: o.existingFiles = .replace
        case .noClobber: o.existingFiles = .skip
        case .fps: o.fps = try integer(value, spec, range: 1...120)
        }
    }

    static func nonEmpty(_ v: String, _ spec: OptionSpec) throws(UsageError) -> String {
        if v.isEmpty { throw UsageError("\(spec.long) needs a non-empty value") }
        return v
    }

    static func integer(_ v: String, _ spec: OptionSpec, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let n = Int(v), range.contains(n) else {
            throw UsageError("\(spec.long) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(SafeQuote.quote(v, limit: 20))'")
        }
        return n
    }

    static func seconds(_ v: String, _ spec: OptionSpec) throws(UsageError) -> Double {
        guard let s = NumericBounds.seconds(v) else {
            throw UsageError("\(spec.long) must be a number of seconds from \(NumericBounds.secondsText), not '\(SafeQuote.quote(v, limit: 20))'")
        }
        return s
    }
}

/// One option of the contract: its spellings and whether it takes a value.
struct OptionSpec: Sendable {
    enum Key: Sendable {
        case inputFile, outputDir, session, maxConnections, requestTimeout, resourceTimeout, header
        case cacert, upload, job, csv, har, theme, noTUI, fps, locationTrusted, force, clobber, noClobber
    }
    var key: Key
    var short: String?
    var long: String
    var takesValue: Bool

    static let all: [OptionSpec] = [
        OptionSpec(key: .inputFile, short: "-i", long: "--input-file", takesValue: true),
        OptionSpec(key: .outputDir, short: "-o", long: "--output-dir", takesValue: true),
        OptionSpec(key: .clobber, short: nil, long: "--clobber", takesValue: false),
        OptionSpec(key: .noClobber, short: nil, long: "--no-clobber", takesValue: false),
        OptionSpec(key: .session, short: nil, long: "--session", takesValue: true),
        OptionSpec(key: .maxConnections, short: nil, long: "--max-connections-per-host", takesValue: true),
        OptionSpec(key: .requestTimeout, short: nil, long: "--request-timeout", takesValue: true),
        OptionSpec(key: .resourceTimeout, short: nil, long: "--resource-timeout", takesValue: true),
        OptionSpec(key: .header, short: "-H", long: "--header", takesValue: true),
        OptionSpec(key: .locationTrusted, short: nil, long: "--location-trusted", takesValue: false),
        OptionSpec(key: .cacert, short: nil, long: "--cacert", takesValue: true),
        OptionSpec(key: .upload, short: nil, long: "--upload", takesValue: true),
        OptionSpec(key: .job, short: nil, long: "--job", takesValue: true),
        OptionSpec(key: .csv, short: nil, long: "--csv", takesValue: true),
        OptionSpec(key: .har, short: nil, long: "--har", takesValue: true),
        OptionSpec(key: .force, short: nil, long: "--force", takesValue: false),
        OptionSpec(key: .theme, short: nil, long: "--theme", takesValue: true),
        OptionSpec(key: .noTUI, short: nil, long: "--no-tui", takesValue: false),
        OptionSpec(key: .fps, short: nil, long: "--fps", takesValue: true),
    ]

    static func find(_ name: String) -> OptionSpec? {
        all.first { $0.long == name || $0.short == name }
    }
}
