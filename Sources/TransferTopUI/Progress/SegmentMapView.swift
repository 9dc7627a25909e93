import TransferModel

/// A segmented upload's map in the monitor: `SegmentMap`'s cells, each run of equal
/// cells in its state's colour (stored green, in flight as running, waiting dim, to be retried
/// as suspended, failed as an error), so it reads without colour too.
public enum SegmentMapView {
    public static func spans(_ states: [SegmentScheduler.State], width: Int) -> [Span] {
        let text = SegmentMap.render(states, width: width)
        var spans: [Span] = []
        var run = ""
        var current: Character?
        func flush() {
            guard let c = current, !run.isEmpty else { return }
            spans.append(Span(run, role(c)))
        }
        for c in text {
            if c != current {
                flush()
                run = ""
                current = c
            }
            run.append(c)
        }
        flush()
        return spans
    }

    /// `12/40 stored`.
    public static func count(_ states: [SegmentScheduler.State]) -> String {
        "\(states.filter { $0 == .done }.count)/\(states.count) stored"
    }

    static func role(_ cell: Character) -> StyleRole {
        switch cell {
        case "#": return .stateCompleted
        case ">": return .stateRunning
        case "!": return .stateSuspended
        case "x": return .error
        default: return .dim
        }
    }
}
