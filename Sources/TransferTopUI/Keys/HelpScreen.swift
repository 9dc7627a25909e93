/// The help screen, generated from the action table and the current bindings (STYLE 11).
public enum HelpScreen {
    /// Lines of spans: a title, then per group a heading and `keys  action  help` rows.
    public static func lines(bindings: KeyBindings) -> [[Span]] {
        var out: [[Span]] = [[Span("transfertop keys", .title), Span("   (any key closes this help)", .dim)], []]
        var group = ""
        for entry in ActionTable.entries {
            if entry.group != group {
                if !group.isEmpty { out.append([]) }
                group = entry.group
                out.append([Span(group, .title)])
            }
            out.append(row(entry, bindings: bindings))
        }
        return out
    }

    static func row(_ entry: ActionInfo, bindings: KeyBindings) -> [Span] {
        let keys = bindings.keys(for: entry.action).map(\.description).joined(separator: " ")
        return [Span("  " + TextFit.pad(keys.isEmpty ? "(unbound)" : keys, 10), .keyHint),
                Span(TextFit.pad(entry.action.rawValue, 24), .text),
                Span(entry.help, .dim)]
    }
}
