import Foundation
import TransferModel

/// The task table's rows in order (sessions in order, tasks by identifier), after the filter.
///
/// Without a filter no per-task array is built: a row number maps to (session, task) through
/// per-session offsets, so 10,000 tasks cost nothing until a row is drawn.
public struct TaskList {
    let sessions: [SessionSnapshot]
    /// Filtered rows as (session index, task index); nil when unfiltered.
    var filtered: [(Int, Int)]?
    /// Unfiltered: index of the first row of each session.
    let offsets: [Int]
    public let count: Int

    public init(_ model: MonitorModel) {
        self.init(sessions: model.sessions, filter: model.filter)
        guard model.sort != .none else { return }
        // Sorting needs every row: only then is the per-task array built.
        let rows = filtered ?? sessions.indices.flatMap { s in sessions[s].tasks.indices.map { (s, $0) } }
        filtered = model.sort.sorted(rows, sessions, rates: model.rates, now: model.now)
    }

    public init(sessions: [SessionSnapshot], filter: String) {
        self.sessions = sessions
        var offsets: [Int] = []
        var total = 0
        for s in sessions { offsets.append(total); total += s.tasks.count }
        self.offsets = offsets
        let needle = Array(filter.trimmingCharacters(in: .whitespaces).lowercased().utf8)
        if needle.isEmpty {
            filtered = nil
            count = total
        } else {
            let rows = Self.matches(sessions, needle)
            filtered = rows
            count = rows.count
        }
    }

    static func matches(_ sessions: [SessionSnapshot], _ needle: [UInt8]) -> [(Int, Int)] {
        var rows: [(Int, Int)] = []
        for (si, s) in sessions.enumerated() {
            let sessionHit = contains(s.name, needle)
            for (ti, t) in s.tasks.enumerated() where sessionHit || matches(t, needle) { rows.append((si, ti)) }
        }
        return rows
    }

    static func matches(_ t: TaskSnapshot, _ needle: [UInt8]) -> Bool {
        contains(t.currentURL, needle) || t.taskDescription.map { contains($0, needle) } == true
            || contains(DisplayState.text(t), needle) || contains(t.id.description, needle)
            || t.statusCode.map { contains(String($0), needle) } == true
    }

    /// Substring search folding ASCII case only, on UTF-8 bytes without allocating: the filter
    /// runs over every task each frame, and `lowercased()` on 10,000 URLs costs milliseconds.
    /// `needle` must already be lowercased.
    static func contains(_ haystack: String, _ needle: [UInt8]) -> Bool {
        var haystack = haystack
        return haystack.withUTF8 { h in
            guard h.count >= needle.count else { return false }
            outer: for start in 0...(h.count - needle.count) {
                for (i, n) in needle.enumerated() {
                    let c = h[start + i]
                    if (c >= 65 && c <= 90 ? c + 32 : c) != n { continue outer }
                }
                return true
            }
            return false
        }
    }

    public var first: TaskSnapshot? { count > 0 ? self[0] : nil }

    public subscript(row: Int) -> TaskSnapshot {
        let (s, t) = indices(row)
        return sessions[s].tasks[t]
    }

    func indices(_ row: Int) -> (Int, Int) {
        if let filtered { return filtered[row] }
        // The last session whose first row is at or before `row` (binary search).
        var lo = 0, hi = offsets.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if offsets[mid] <= row { lo = mid } else { hi = mid - 1 }
        }
        return (lo, row - offsets[lo])
    }

    /// The row of a task, or nil when it is not shown.
    public func position(of id: TaskID) -> Int? {
        guard let si = sessions.firstIndex(where: { $0.id == id.session }),
              let ti = taskIndex(sessions[si].tasks, id.task) else { return nil }
        if let filtered { return filtered.firstIndex { $0 == (si, ti) } }
        return offsets[si] + ti
    }

    public func task(id: TaskID) -> TaskSnapshot? {
        guard let si = sessions.firstIndex(where: { $0.id == id.session }),
              let ti = taskIndex(sessions[si].tasks, id.task) else { return nil }
        return sessions[si].tasks[ti]
    }

    /// Tasks are in identifier order, so a binary search finds one; a linear scan covers a
    /// snapshot that is not sorted.
    func taskIndex(_ tasks: [TaskSnapshot], _ id: Int) -> Int? {
        var lo = 0, hi = tasks.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            let v = tasks[mid].taskIdentifier
            if v == id { return mid }
            if v < id { lo = mid + 1 } else { hi = mid - 1 }
        }
        return tasks.firstIndex { $0.taskIdentifier == id }
    }
}
