/// `docs/man/transfertop.1`, written from the same declarations as `--help` (argument-parser's
/// ToolInfo dump), so the two cannot drift: `ManualPageTests` fails when the committed page is
/// not what this renders (`RECORD=1` rewrites it). man(7) macros, no date and no version in
/// the header, so the page changes only when the command line does. DECISIONS 37.
enum ManualPage {
    static func render(_ info: ToolInfo) -> String {
        let root = info.command
        let commands = (root.subcommands ?? []).filter { $0.shouldDisplay != false && $0.commandName != "help" }
        var page = [
            ".\\\" Generated from transfertop's argument-parser declarations; do not edit.",
            ".\\\" Regenerate: RECORD=1 swift test --filter ManualPageTests",
            ".TH TRANSFERTOP 1 \"\" \"transfertop\" \"User Commands\"",
            ".SH NAME", "transfertop \\- " + text(lowerFirst(trimPeriod(root.abstract ?? ""))),
            ".SH SYNOPSIS",
        ]
        for (i, c) in commands.enumerated() {
            if i > 0 { page.append(".br") }
            page.append(synopsis(c, default: c.commandName == root.defaultSubcommand))
        }
        page += [".SH DESCRIPTION"] + paragraphs(root.discussion)
        page += [".SH OPTIONS"] + options(root.arguments ?? [])
        page.append(".SH COMMANDS")
        for c in commands {
            page.append(".SS \(c.commandName)" + (c.commandName == root.defaultSubcommand ? " (default)" : ""))
            page += paragraphs([c.abstract, c.discussion].compactMap { $0 }.joined(separator: "\n\n"))
            page += options((c.arguments ?? []).filter { !isBuiltIn($0) })
        }
        page += fixedSections
        return page.joined(separator: "\n") + "\n"
    }

    /// `.B transfertop demo` and its arguments; the default command is named in brackets.
    static func synopsis(_ c: ToolInfo.CommandInfo, default isDefault: Bool) -> String {
        var words = [isDefault ? "[\\fB\(c.commandName)\\fR]" : "\\fB\(c.commandName)\\fR"]
        if isDefault { words.append("[\\fIOPTIONS\\fR]") }
        for a in (c.arguments ?? []) where a.shouldDisplay != false && !isBuiltIn(a) {
            let v = "\\fI\(text(a.valueName ?? ""))\\fR" + (a.isRepeating == true ? " ..." : "")
            let name = (a.names?.last { $0.kind == "long" } ?? a.names?.first)?.spelled ?? ""
            words.append(a.kind == .positional ? "[\(v)]" : "[\\fB\(text(name))\\fR" + (a.kind == .flag ? "]" : " \(v)]"))
        }
        return ".B transfertop\n" + words.joined(separator: " ")
    }

    static func options(_ arguments: [ToolInfo.ArgumentInfo]) -> [String] {
        arguments.filter { $0.shouldDisplay != false }.flatMap { a -> [String] in
            let value = a.kind == .flag ? "" : " \\fI\(text(a.valueName ?? ""))\\fR"
            let label = a.kind == .positional ? "\\fI\(text(a.valueName ?? ""))\\fR"
                : (a.names ?? []).map { "\\fB\(text($0.spelled))\\fR" }.joined(separator: ", ") + value
            return [".TP", label] + [text(a.abstract ?? "")] + paragraphs(a.discussion).dropFirst()
        }
    }

    /// `--help`/`--version` are described once, under OPTIONS, not under every command.
    static func isBuiltIn(_ a: ToolInfo.ArgumentInfo) -> Bool {
        a.names?.contains { $0.name == "help" || $0.name == "version" } == true
    }

    static func paragraphs(_ s: String?) -> [String] {
        guard let s, !s.isEmpty else { return [] }
        return s.components(separatedBy: "\n\n").flatMap { [".PP", text($0.replacingOccurrences(of: "\n", with: " "))] }
    }

    /// Text safe in roff: backslashes and hyphens escaped, no line starting with a control
    /// character.
    static func text(_ s: String) -> String {
        let escaped = s.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return escaped.first == "." || escaped.first == "'" ? "\\&" + escaped : escaped
    }

    static func trimPeriod(_ s: String) -> String { s.hasSuffix(".") ? String(s.dropLast()) : s }
    static func lowerFirst(_ s: String) -> String { s.prefix(1).lowercased() + s.dropFirst() }

    /// What the declarations do not say: the exit statuses, the environment, the files, where
    /// to read more.
    static let fixedSections = [
        ".SH EXIT STATUS",
        ".TP", "\\fB0\\fR",
        "Every task completed with a 2xx response (file, ftp and data: URLs: without an error); \\fBcompare\\fR: no row got slower; \\fBreport\\fR: the report was written.",
        ".TP", "\\fB1\\fR",
        "A task failed, got an HTTP error or was cancelled, or an export could not be written; \\fBcompare\\fR: a row got slower beyond \\fB\\-\\-threshold\\fR.",
        ".TP", "\\fB2\\fR",
        "A usage error, found before any transfer: a bad option or budget (\\fB\\-\\-slo\\fR names the column), a file that cannot be read (\\fBcompare\\fR and \\fBreport\\fR: a file that is not a \\fB\\-\\-csv\\fR or \\fB\\-\\-har\\fR export; \\fBreport\\fR: a report file that exists without \\fB\\-\\-force\\fR or cannot be written).",
        ".TP", "\\fB3\\fR",
        "A \\fB\\-\\-slo\\fR budget was breached (a line on stderr for each); it wins over 1.",
        ".SH ENVIRONMENT",
        ".TP", "\\fBXDG_STATE_HOME\\fR",
        "Resume data and the record of finished files live under \\fI$XDG_STATE_HOME/transfertop\\fR (default \\fI~/.local/state/transfertop\\fR).",
        ".TP", "\\fBXDG_CONFIG_HOME\\fR",
        "Key bindings: \\fI$XDG_CONFIG_HOME/transfertop/keys.conf\\fR; themes may be put in \\fI$XDG_CONFIG_HOME/transfertop/themes\\fR.",
        ".TP", "\\fBNO_COLOR\\fR",
        "When set, the monitor draws without colour.",
        ".TP", "\\fBTRANSFERTOP_SSH_COMMAND\\fR",
        "What \\fB\\-\\-host ssh://\\fR runs instead of \\fBssh\\fR, through \\fI/bin/sh\\fR (as git's GIT_SSH_COMMAND), e.g. \\fIssh \\-F my_config\\fR.",
        ".TP", "\\fBTRANSFERTOP_REMOTE_PROGRAM\\fR",
        "The transfertop the other host runs for \\fB\\-\\-host ssh://\\fR (default \\fItransfertop\\fR on its PATH).",
        ".SH SEE ALSO",
        "\\fBcurl\\fR(1). The project's \\fIdocs/cli.md\\fR, \\fIdocs/evidence.md\\fR, \\fIdocs/report.md\\fR, \\fIdocs/remote.md\\fR, \\fIdocs/jobs.md\\fR, \\fIdocs/keys.md\\fR and \\fIdocs/themes.md\\fR.",
    ]
}
