/// The task table's columns and their widths for a terminal width (SPEC T1).
///
/// The URL column takes what is left; when it would get too little, columns are dropped in
/// `dropOrder`, then the bar shrinks to just the percentage.
public struct TaskColumns: Sendable, Equatable {
    public enum Column: String, Sendable, Equatable, CaseIterable {
        case id, kind, state, url, progress, size, speed, eta, status, proto

        var heading: String {
            switch self {
            case .id: return "ID"
            case .kind: return "KIND"
            case .state: return "STATE"
            case .url: return "URL"
            case .progress: return "PROGRESS"
            case .size: return "DONE/TOTAL"
            case .speed: return "SPEED"
            case .eta: return "ETA"
            case .status: return "HTTP"
            case .proto: return "PROTO"
            }
        }

        /// Numbers read best right-aligned.
        var rightAligned: Bool { [.size, .speed, .eta].contains(self) }
    }

    public var columns: [(column: Column, width: Int)]
    /// Width of the bar inside the progress column (0: percentage only).
    public var barWidth: Int

    static let dropOrder: [Column] = [.kind, .proto, .eta, .status, .size, .speed]

    public static func fit(width: Int, idWidth: Int) -> TaskColumns {
        var shown = Column.allCases
        var bar = width >= 140 ? 20 : (width >= 100 ? 14 : 10)
        let urlMinimum = width >= 100 ? 24 : 16
        for drop in dropOrder where urlWidth(shown, bar: bar, id: idWidth, total: width) < urlMinimum {
            shown.removeAll { $0 == drop }
        }
        if urlWidth(shown, bar: bar, id: idWidth, total: width) < urlMinimum { bar = 0 }
        let url = urlWidth(shown, bar: bar, id: idWidth, total: width)
        return TaskColumns(columns: shown.map { ($0, $0 == .url ? url : fixedWidth($0, bar: bar, id: idWidth)) }, barWidth: bar)
    }

    /// What is left for the URL: the total minus the marker column, the fixed columns and a
    /// space between neighbours.
    static func urlWidth(_ shown: [Column], bar: Int, id: Int, total: Int) -> Int {
        let fixed = shown.filter { $0 != .url }.reduce(0) { $0 + fixedWidth($1, bar: bar, id: id) }
        return total - 1 - fixed - (shown.count - 1)
    }

    static func fixedWidth(_ c: Column, bar: Int, id: Int) -> Int {
        switch c {
        case .id: return Swift.max(2, id)
        case .kind: return 4
        case .state: return 9
        case .url: return 0
        case .progress: return bar > 0 ? bar + 5 : 4
        case .size: return 17
        case .speed: return 10
        case .eta: return 5
        case .status: return 4
        case .proto: return 8
        }
    }

    public static func == (a: TaskColumns, b: TaskColumns) -> Bool {
        a.barWidth == b.barWidth && a.columns.elementsEqual(b.columns) { $0 == $1 }
    }
}
