/// The help screen, generated from the action table and the current bindings,
/// followed by the legend of state symbols and waterfall phases.
public enum HelpScreen {
    /// Lines of spans: a title, then per group a heading and `keys  action  help` rows.
    public static func lines(bindings: KeyBindings, utf8: Bool = true, monochrome: Bool = false) -> [[Span]] {
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
        return out + [[]] + legend(utf8: utf8, monochrome: monochrome) + [[]] + background
    }

    /// What the keys do on the daemon's rows (DECISIONS 127-128).
    static let background: [[Span]] = [
        [Span("Background sessions", .title), Span("   (ID NAME:N, session bg NAME: the daemon's live ones, while it runs)", .dim)],
        [Span("  s r d c X go to the daemon; its answer shows in the status line", .dim)],
        [Span("  n: submit with transfertop --background NAME URL; R: submit again (resumes the file)", .dim)],
        [Span("  f: X cancels the session's tasks and invalidates it; transfertop wait NAME waits for them", .dim)],
        [Span("  q and Ctrl-C only detach from them: the daemon's tasks go on", .dim)],
        [Span("  phase columns stay empty (the daemon sends states and bytes, not metrics)", .dim)],
    ]

    static func row(_ entry: ActionInfo, bindings: KeyBindings) -> [Span] {
        let keys = bindings.keys(for: entry.action).map(\.description).joined(separator: " ")
        return [Span("  " + TextFit.pad(keys.isEmpty ? "(unbound)" : keys, 10), .keyHint),
                Span(TextFit.pad(entry.action.rawValue, 24), .text),
                Span(entry.help, .dim)]
    }

    /// What the header's symbols, the STATE and RESULT columns and the waterfall glyphs mean.
    public static func legend(utf8: Bool, monochrome: Bool) -> [[Span]] {
        var out: [[Span]] = [[Span("States", .title), Span("   (header counts use the symbols)", .dim)]]
        for state in DisplayState.allCases {
            out.append([Span("  " + TextFit.pad(state.symbol(utf8: utf8), 2), state.role),
                        Span(TextFit.pad(state.label, 10), state.role), Span(stateHelp(state), .dim)])
        }
        out += [[], [Span("Phases", .title), Span("   (waterfall, DNS CONN TLS TTFB columns, in ms; defined in docs/metrics.md)", .dim)]]
        for phase in WaterfallPhase.allCases {
            out.append([Span("  " + String(repeating: WaterfallView.glyph(phase, utf8: utf8, monochrome: monochrome), count: 2) + " ", phase.role),
                        Span(TextFit.pad(phase.label, 6), phase.role), Span(phaseHelp(phase), .dim)])
        }
        out.append([Span("  " + String(repeating: WaterfallView.failedGlyph(utf8: utf8), count: 2) + " ", .barError),
                    Span(TextFit.pad(WaterfallView.failedMark(utf8: utf8), 6), .error),
                    Span("the phase a failed hop ended in, and how long it took (its column shows the mark and the time)", .dim)])
        return out
    }

    static func stateHelp(_ s: DisplayState) -> String {
        switch s {
        case .queued: return "started, waiting for a connection (the per-host limit)"
        case .running: return "transferring; RESULT shows the phase it is in"
        case .suspended: return "paused (r resumes)"
        case .canceling: return "cancel under way (d also writes resume data)"
        case .completed: return "RESULT ok: finished with a status below 400"
        case .httpError: return "RESULT HTTP nnn: the server answered 4xx or 5xx"
        case .failed: return "RESULT error: the transfer failed (detail pane says why)"
        case .cancelled: return "RESULT cancelled: stopped by c, d or X"
        }
    }

    static func phaseHelp(_ p: WaterfallPhase) -> String {
        switch p {
        case .queued: return "waiting for a free connection"
        case .dns: return "name lookup (DNS column)"
        case .connect: return "TCP connect (CONN column; reused: no new connection)"
        case .tls: return "TLS handshake (TLS column)"
        case .request: return "sending the request"
        case .wait: return "waiting for the first byte (TTFB: from the queue's end to here)"
        case .receive: return "receiving the response"
        }
    }
}
