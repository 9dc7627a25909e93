import TransferModel

/// argument-parser's messages made ours: one line in our words (the wording scripts and
/// `BadInputMatrixTests` know), nothing echoed that a user did not mean to show, and the
/// library's text kept (lower-cased, escaped) for the cases we do not reword.
enum ParserMessage {
    static func oneLine(_ message: String, arguments: [String]) -> String {
        let line = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? "bad arguments"
        var text = reworded(line) ?? (line.prefix(1).lowercased() + line.dropFirst())
        for argument in arguments where argument.hasPrefix("-") {
            text = text.replacingOccurrences(of: "'\(argument)'", with: "'\(shown(argument))'")
        }
        return SafeQuote.quote(text, limit: 200)
    }

    /// The library's wording (1.8) → ours. A value given to a flag is not quoted back: it may be
    /// a password typed in the wrong place.
    static func reworded(_ line: String) -> String? {
        if let m = line.wholeMatch(of: /Unknown option '([^']*)'(?:\. Did you mean '([^']*)'\?)?/) {
            // `--host` is the background commands'; a submission names the host in --background.
            if m.1 == "--host" {
                return "unknown option '--host' here: status, wait, control and attach take it; "
                    + "--background takes another host's daemon as ssh://HOST/NAME"
            }
            return "unknown option '\(m.1)'" + (m.2.map { " (did you mean '\($0)'?)" } ?? "")
        }
        if let m = line.wholeMatch(of: /Missing value for '([^' ]*)(?: <[^>]*>)?'/) {
            return "option '\(m.1)' needs a value"
        }
        if let m = line.wholeMatch(of: /The option '([^']*)' does not take any value, but '.*' was specified\./) {
            return "option '\(m.1)' takes no value"
        }
        return nil
    }

    /// How an option argument may appear in a message: `-uuser:secret` (curl's spelling of a
    /// short option with its value glued on) as `-u`, a `--name=value` as `--name`.
    static func shown(_ argument: String) -> String {
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") { return String(argument[..<eq]) }
        if !argument.hasPrefix("--"), argument.count > 2 { return String(argument.prefix(2)) }
        return argument
    }

    /// argument-parser reads `-abc` as the group `-a -b -c`, so `-uuser:hunter2` asks for
    /// help through the `h` of "hunter2". transfertop has no short flags to group: when help
    /// came without `-h`, `--help` or `help`, the first such group is an unknown option.
    static func strayHelpGroup(in arguments: [String]) -> String? {
        let options = arguments.prefix { $0 != "--" }
        if options.contains(where: { ["-h", "--help", "help"].contains($0) }) { return nil }
        return options.first { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.count > 2 && $0.contains("h") }
    }
}
