/// A transfer run's command line read without argument-parser, when it is plain enough to
/// read only one way: `transfertop [OPTIONS] URL...` with the root's own spellings.
///
/// argument-parser finds a command's options by reflecting on its values at every start, and
/// each first check of a type against a protocol scans all of the binary's conformance records
/// (DECISIONS 195); that was half of a one-URL run's instructions. Anything this reader is not
/// sure of (a subcommand, help, an unknown or grouped option, `--`, a value that starts with a
/// dash, a setting given twice) is left to argument-parser, which stays the command
/// line's definition: its help, completion scripts, man page and messages. `QuickRunLineTests`
/// holds the two to the same answers, spelling by spelling and on random command lines
/// (DECISIONS 198).
enum QuickRunLine {
    /// How a spelling takes its value.
    enum Kind: Equatable {
        /// One value, the next argument or after `=`.
        case value
        /// One value per use, repeatable.
        case list
        /// No value.
        case flag
    }

    /// The names of one setting. Names that set the same value (`--clobber`, `--no-clobber`)
    /// are one spelling, so a line that gives two of them is left to argument-parser, which
    /// takes the last one or refuses both by the option's declaration.
    struct Spelling: Sendable {
        let names: [String]
        let kind: Kind
        /// Records the value, or for a flag the name it was given by.
        let apply: @Sendable (inout TransferValues, String) -> Void
    }

    /// Every option of `TransferOptions`, as argument-parser spells it.
    static let spellings: [Spelling] = [
        Spelling(names: ["-i", "--input-file"], kind: .list) { $0.inputFiles.append($1) },
        Spelling(names: ["-o", "--output-dir"], kind: .value) { $0.outputDirectory = $1 },
        Spelling(names: ["--clobber", "--no-clobber"], kind: .flag) { $0.existing = $1 == "--clobber" ? .clobber : .noClobber },
        Spelling(names: ["--session"], kind: .value) { $0.session = $1 },
        Spelling(names: ["--max-connections-per-host"], kind: .value) { $0.maxConnectionsPerHost = $1 },
        Spelling(names: ["--request-timeout"], kind: .value) { $0.requestTimeout = $1 },
        Spelling(names: ["--resource-timeout"], kind: .value) { $0.resourceTimeout = $1 },
        Spelling(names: ["-H", "--header"], kind: .list) { $0.headers.append($1) },
        Spelling(names: ["-A", "--user-agent"], kind: .value) { $0.userAgent = $1 },
        Spelling(names: ["--compressed"], kind: .flag) { v, _ in v.compressed = true },
        Spelling(names: ["--max-filesize"], kind: .value) { $0.maxFilesize = $1 },
        Spelling(names: ["--max-redirs"], kind: .value) { $0.maxRedirs = $1 },
        Spelling(names: ["--content-disposition", "--no-content-disposition"], kind: .flag) {
            $0.contentDisposition = $1 == "--content-disposition"
        },
        Spelling(names: ["--location-trusted"], kind: .flag) { v, _ in v.locationTrusted = true },
        Spelling(names: ["-u", "--user"], kind: .value) { $0.user = $1 },
        Spelling(names: ["--basic", "--digest", "--anyauth"], kind: .flag) {
            $0.authentication = $1 == "--basic" ? .basic : $1 == "--digest" ? .digest : .anyauth
        },
        Spelling(names: ["-b", "--cookie"], kind: .list) { $0.cookie.append($1) },
        Spelling(names: ["-c", "--cookie-jar"], kind: .value) { $0.cookieJar = $1 },
        Spelling(names: ["--netrc"], kind: .flag) { v, _ in v.netrc = true },
        Spelling(names: ["--netrc-file"], kind: .value) { $0.netrcFile = $1 },
        Spelling(names: ["--cacert"], kind: .value) { $0.cacert = $1 },
        Spelling(names: ["--cache"], kind: .flag) { v, _ in v.cache = true },
        Spelling(names: ["--cache-policy"], kind: .value) { $0.cachePolicy = $1 },
        Spelling(names: ["-k", "--insecure"], kind: .flag) { v, _ in v.insecure = true },
        Spelling(names: ["--pinnedpubkey"], kind: .value) { $0.pinnedpubkey = $1 },
        Spelling(names: ["--cert"], kind: .value) { $0.cert = $1 },
        Spelling(names: ["--key"], kind: .value) { $0.key = $1 },
        Spelling(names: ["-T", "--upload"], kind: .value) { $0.upload = $1 },
        Spelling(names: ["--segments"], kind: .value) { $0.segments = $1 },
        Spelling(names: ["--segment-size"], kind: .value) { $0.segmentSize = $1 },
        Spelling(names: ["-F", "--form"], kind: .list) { $0.form.append($1) },
        Spelling(names: ["--job"], kind: .value) { $0.job = $1 },
        Spelling(names: ["--csv"], kind: .value) { $0.csv = $1 },
        Spelling(names: ["--har"], kind: .value) { $0.har = $1 },
        Spelling(names: ["--summary"], kind: .value) { $0.summary = $1 },
        Spelling(names: ["--slo"], kind: .value) { $0.slo = $1 },
        Spelling(names: ["--force"], kind: .flag) { v, _ in v.force = true },
        Spelling(names: ["--theme"], kind: .value) { $0.theme = $1 },
        Spelling(names: ["--no-tui"], kind: .flag) { v, _ in v.noTUI = true },
        Spelling(names: ["--progress"], kind: .flag) { v, _ in v.progress = true },
        Spelling(names: ["--fps"], kind: .value) { $0.fps = $1 },
        Spelling(names: ["--yes"], kind: .flag) { v, _ in v.yes = true },
        Spelling(names: ["--debug"], kind: .flag) { v, _ in v.debug = true },
        Spelling(names: ["--log-file"], kind: .value) { $0.logFile = $1 },
        Spelling(names: ["--log-level"], kind: .value) { $0.logLevel = $1 },
        Spelling(names: ["--trace"], kind: .flag) { v, _ in v.trace = true },
        Spelling(names: ["--prometheus"], kind: .value) { $0.prometheus = $1 },
        Spelling(names: ["--otlp"], kind: .value) { $0.otlp = $1 },
        Spelling(names: ["--background"], kind: .value) { $0.background = $1 },
    ]

    /// Words argument-parser would read as a subcommand (or its `help`) where a URL stands.
    static let commandWords = [
        "run", "demo", "clean", "compare", "report", "status", "wait", "attach", "control", "daemon", "help",
    ]

    /// The options and URLs of a plain run, or nil: then argument-parser reads the line.
    static func read(_ arguments: [String]) -> (values: TransferValues, urls: [String])? {
        var values = TransferValues()
        var urls: [String] = []
        var used = [Bool](repeating: false, count: spellings.count)
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            guard argument.hasPrefix("-") else {
                if commandWords.contains(argument) { return nil }
                urls.append(argument)
                continue
            }
            // `-X` or `--name[=value]`; grouped short flags, `-oVALUE`, `--` and `-` are not read here.
            let name: String, inline: Substring?
            if argument.hasPrefix("--") {
                guard argument.utf8.count > 2 else { return nil }
                if let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inline = argument[argument.index(after: equals)...]
                } else {
                    (name, inline) = (argument, nil)
                }
            } else {
                guard argument.utf8.count == 2 else { return nil }
                (name, inline) = (argument, nil)
            }
            guard let index = spellings.firstIndex(where: { $0.names.contains(where: { $0 == name }) }) else { return nil }
            let spelling = spellings[index]
            if spelling.kind != .list {
                if used[index] { return nil }
                used[index] = true
            }
            if spelling.kind == .flag {
                if inline != nil { return nil }
                spelling.apply(&values, name)
                continue
            }
            let value: String
            if let inline {
                // argument-parser reads `--name=` as a missing value.
                guard !inline.isEmpty else { return nil }
                value = String(inline)
            } else {
                guard i < arguments.count else { return nil }
                value = arguments[i]
                i += 1
            }
            if value.hasPrefix("-") && value != "-" { return nil }
            spelling.apply(&values, value)
        }
        return (values, urls)
    }
}
