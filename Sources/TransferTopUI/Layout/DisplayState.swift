import TransferModel

/// A task's state as the monitor shows it, in the mission's words: `queued`,
/// `running`, `suspended`, `canceling`, and `completed` split by its outcome (ok, an HTTP
/// error status, a transfer error, or cancellation) so each outcome has its own colour.
public enum DisplayState: String, Sendable, Equatable, CaseIterable {
    /// Running in URLSession's terms but waiting for a connection (the per-host limit).
    case queued
    case running, suspended, canceling
    /// Completed without an error and with a status below 400 (or no HTTP at all).
    case completed
    /// Completed without a transfer error but with a 4xx or 5xx status.
    case httpError
    case failed, cancelled

    public init(_ task: TaskSnapshot) {
        switch task.state {
        case .running:
            self = task.metrics.transactionMetrics.last?.currentPhase == .queued ? .queued : .running
        case .suspended: self = .suspended
        case .canceling: self = .canceling
        case .completed:
            if let error = task.error {
                self = error.code == .cancelled ? .cancelled : .failed
            } else {
                // As the exit status counts a response (`Runner.succeeded`): a final one outside
                // 2xx (an error, or a 1xx or 3xx that was not followed) did not succeed.
                let status = task.statusCode ?? 200
                self = (200..<300).contains(status) || status == 0 ? .completed : .httpError
            }
        }
    }

    /// The position in `allCases` (a switch: `firstIndex(of:)` would search).
    @usableFromInline var index: Int {
        switch self {
        case .queued: return 0
        case .running: return 1
        case .suspended: return 2
        case .canceling: return 3
        case .completed: return 4
        case .httpError: return 5
        case .failed: return 6
        case .cancelled: return 7
        }
    }

    /// The state's name: one of the mission's five, `completed` for every outcome.
    public var label: String {
        switch self {
        case .completed, .httpError, .failed, .cancelled: return "completed"
        default: return rawValue
        }
    }

    /// How a completed task ended (`ok`, `HTTP 404`, `error`, `cancelled`); nil before then.
    public func outcome(_ task: TaskSnapshot) -> String? {
        switch self {
        case .completed: return "ok"
        case .httpError: return "HTTP \(task.statusCode ?? 0)"
        case .failed: return "error"
        case .cancelled: return "cancelled"
        default: return nil
        }
    }

    /// `completed ok`, `completed HTTP 404`, `running`: the label with the outcome, for
    /// line mode and the filter.
    public static func text(_ task: TaskSnapshot) -> String {
        let s = DisplayState(task)
        return s.outcome(task).map { "\(s.label) \($0)" } ?? s.label
    }

    /// Whether it ended badly (an HTTP error status or a transfer error): drawn as an error.
    public var isError: Bool { self == .httpError || self == .failed }

    public var role: StyleRole {
        switch self {
        case .queued: return .stateQueued
        case .running: return .stateRunning
        case .suspended: return .stateSuspended
        case .canceling: return .stateCanceling
        case .completed: return .stateCompleted
        case .httpError, .failed: return .stateFailed
        case .cancelled: return .stateCancelled
        }
    }

    /// A one-column symbol for compact counts (ASCII: a letter or sign).
    public func symbol(utf8: Bool) -> String {
        guard utf8 else { return asciiSymbol }
        switch self {
        case .queued: return "◌"
        case .running: return "▶"
        case .suspended: return "‖"
        case .canceling: return "⊘"
        case .completed: return "✓"
        case .httpError: return "!"
        case .failed: return "✗"
        case .cancelled: return "∅"
        }
    }

    var asciiSymbol: String {
        switch self {
        case .queued: return "Q"
        case .running: return "R"
        case .suspended: return "S"
        case .canceling: return "C"
        case .completed: return "+"
        case .httpError: return "!"
        case .failed: return "E"
        case .cancelled: return "X"
        }
    }

    /// What the symbol means, for the legend in the help and the footer.
    public var legendWord: String {
        switch self {
        case .completed: return "ok"
        case .httpError: return "HTTP error"
        case .failed: return "error"
        default: return rawValue
        }
    }
}

/// How many tasks are in each display state.
public struct StateCounts: Sendable, Equatable {
    /// Indexed by `DisplayState.index`: an array, not a dictionary, because it is filled for
    /// every task of every frame (10,000 hash updates a frame showed in the monitor's profile).
    @usableFromInline var counts = [Int](repeating: 0, count: DisplayState.allCases.count)

    public init() {}

    /// Inlinable, so a caller in another module gets it specialised for its sequence: not
    /// specialised, its first call looked up the iterator type at run time, half a million
    /// instructions, 2 % of a one-URL run, for the summary's last line.
    @inlinable
    public init<S: Sequence>(_ tasks: S) where S.Element == TaskSnapshot {
        for t in tasks { counts[DisplayState(t).index] += 1 }
    }

    /// The counts of several groups together (the header sums the sessions').
    public init<S: Sequence>(summing groups: S) where S.Element == StateCounts {
        for g in groups { for i in counts.indices { counts[i] += g.counts[i] } }
    }

    public subscript(state: DisplayState) -> Int { counts[state.index] }
    public var total: Int { counts.reduce(0, +) }

    /// `▶2 ‖1 ✓3 ✗1` with zero counts left out (all shown when every count is zero).
    public func spans(utf8: Bool) -> [Span] {
        DisplayState.allCases.filter { self[$0] > 0 }.map { Span("\($0.symbol(utf8: utf8))\(self[$0]) ", $0.role) }
    }
}
