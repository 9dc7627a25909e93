import Foundation
import TransferModel

/// The task table's order: identifier order, or by a column. `o`/F6 cycles through
/// them; the selection follows its task, not its row.
public enum TaskSort: String, Sendable, Equatable, CaseIterable {
    case none, state, progress, speed, ttfb, name

    public var next: TaskSort {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// Rows (session index, task index) in this order; ties keep identifier order. Progress,
    /// speed and TTFB sort the largest first, which is what one looks for.
    func sorted(_ rows: [(Int, Int)], _ sessions: [SessionSnapshot], rates: TransferRates, now: Date) -> [(Int, Int)] {
        let keyed = rows.enumerated().map { (i, r) in (i, r, key(sessions[r.0].tasks[r.1], rates: rates, now: now)) }
        return keyed.sorted { a, b in a.2 != b.2 ? a.2 < b.2 : a.0 < b.0 }.map(\.1)
    }

    func key(_ t: TaskSnapshot, rates: TransferRates, now: Date) -> SortKey {
        switch self {
        case .none: return .number(0)
        case .state: return .number(Double(DisplayState.allCases.firstIndex(of: DisplayState(t))!))
        case .progress:
            let (d, e) = TransferRates.progress(t)
            return .number(-(ProgressBar.fraction(done: d, expected: e) ?? -1))
        case .speed: return .number(-rates.speed(of: t.id))
        case .ttfb:
            let hops = Waterfall.hops(t.metrics, now: now)
            return .number(-(hops.last.flatMap(TaskPhases.ttfb)?.ms ?? -1))
        case .name: return .text(ScreenRenderer.urlLabel(t, utf8: true).lowercased())
        }
    }

    enum SortKey: Comparable {
        case number(Double)
        case text(String)
    }
}
