import TransferModel

/// A task's state as the monitor shows it: `completed` split by how it ended.
public enum DisplayState: String, Sendable, Equatable, CaseIterable {
    case running, suspended, canceling, done, failed, cancelled

    public init(_ task: TaskSnapshot) {
        switch task.state {
        case .running: self = .running
        case .suspended: self = .suspended
        case .canceling: self = .canceling
        case .completed:
            guard let error = task.error else { self = .done; return }
            self = error.code == .cancelled ? .cancelled : .failed
        }
    }

    public var label: String { rawValue }

    public var role: StyleRole {
        switch self {
        case .running: return .stateRunning
        case .suspended: return .stateSuspended
        case .canceling, .cancelled: return .stateCanceling
        case .done: return .stateCompleted
        case .failed: return .stateFailed
        }
    }

    /// A one-column symbol for compact counts (ASCII: the first letter).
    public func symbol(utf8: Bool) -> String {
        guard utf8 else { return asciiSymbol }
        switch self {
        case .running: return "▶"
        case .suspended: return "‖"
        case .canceling: return "⊘"
        case .done: return "✓"
        case .failed: return "✗"
        case .cancelled: return "∅"
        }
    }

    var asciiSymbol: String {
        switch self {
        case .running: return "R"
        case .suspended: return "S"
        case .canceling: return "C"
        case .done: return "D"
        case .failed: return "F"
        case .cancelled: return "X"
        }
    }
}

/// How many tasks are in each display state.
public struct StateCounts: Sendable, Equatable {
    public var counts: [DisplayState: Int] = [:]

    public init<S: Sequence>(_ tasks: S) where S.Element == TaskSnapshot {
        for t in tasks { counts[DisplayState(t), default: 0] += 1 }
    }

    public subscript(state: DisplayState) -> Int { counts[state] ?? 0 }
    public var total: Int { counts.values.reduce(0, +) }

    /// `▶2 ‖1 ✓3 ✗1` with zero counts left out (all shown when every count is zero).
    public func spans(utf8: Bool) -> [Span] {
        DisplayState.allCases.filter { self[$0] > 0 }.map { Span("\($0.symbol(utf8: utf8))\(self[$0]) ", $0.role) }
    }
}
