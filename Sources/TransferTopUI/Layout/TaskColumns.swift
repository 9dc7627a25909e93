/// The task table's columns and their widths for a terminal width.
///
/// The URL column takes what is left; when it would get too little, columns are dropped in
/// `dropOrder`, then the bar shrinks to just the percentage. The order keeps the metrics at a
/// glance: from 100 columns DNS, connect, TLS and TTFB and a mini waterfall; at 80 columns
/// TTFB and a compact waterfall.
public struct TaskColumns: Sendable, Equatable {
    public enum Column: String, Sendable, Equatable, CaseIterable {
        case id, kind, state, url, progress, result, dns, connect, tls, ttfb, waterfall, size, speed, eta, proto

        var heading: String {
            switch self {
            case .id: return "ID"
            case .kind: return "KIND"
            case .state: return "STATE"
            case .url: return "URL"
            case .progress: return "PROGRESS"
            case .result: return "RESULT"
            case .dns: return "DNS"
            case .connect: return "CONN"
            case .tls: return "TLS"
            case .ttfb: return "TTFB"
            case .waterfall: return "TIMING"
            case .size: return "DONE/TOTAL"
            case .speed: return "SPEED"
            case .eta: return "ETA"
            case .proto: return "PROTO"
            }
        }

        /// Numbers read best right-aligned.
        var rightAligned: Bool { [.size, .speed, .eta, .dns, .connect, .tls, .ttfb].contains(self) }
    }

    public var columns: [(column: Column, width: Int)]
    /// Width of the bar inside the progress column (0: percentage only).
    public var barWidth: Int
    /// Width of the mini waterfall column.
    public var waterfallWidth: Int

    static let dropOrder: [Column] = [.kind, .proto, .size, .eta, .tls, .dns, .connect, .speed, .waterfall, .ttfb, .result]

    public static func fit(width: Int, idWidth: Int, set: ColumnSet = .phases) -> TaskColumns {
        var shown = Column.allCases
        var bar = width >= 140 ? 20 : (width >= 120 ? 10 : 6)
        let waterfall = width >= 140 ? 20 : (width >= 120 ? 12 : 8)
        let urlMinimum = width >= 120 ? 20 : 16
        let url = { urlWidth(shown, bar: bar, waterfall: waterfall, id: idWidth, total: width) }
        for drop in set.dropOrder where url() < urlMinimum {
            shown.removeAll { $0 == drop }
        }
        if url() < urlMinimum { bar = 0 }
        let left = url()
        return TaskColumns(columns: shown.map { ($0, $0 == .url ? left : fixedWidth($0, bar: bar, waterfall: waterfall, id: idWidth)) },
                           barWidth: bar, waterfallWidth: waterfall)
    }

    /// What is left for the URL: the total minus the marker column, the fixed columns and a
    /// space between neighbours.
    static func urlWidth(_ shown: [Column], bar: Int, waterfall: Int, id: Int, total: Int) -> Int {
        let fixed = shown.filter { $0 != .url }.reduce(0) { $0 + fixedWidth($1, bar: bar, waterfall: waterfall, id: id) }
        return total - 1 - fixed - (shown.count - 1)
    }

    static func fixedWidth(_ c: Column, bar: Int, waterfall: Int, id: Int) -> Int {
        switch c {
        case .id: return Swift.max(2, id)
        case .kind: return 4
        case .state: return 9
        case .url: return 0
        case .progress: return bar > 0 ? bar + 5 : 4
        case .result: return 9
        case .dns, .tls, .ttfb: return 5
        case .connect: return 6  // "reused"
        case .waterfall: return waterfall
        case .size: return 17
        case .speed: return 10
        case .eta: return 5
        case .proto: return 8
        }
    }

    public static func == (a: TaskColumns, b: TaskColumns) -> Bool {
        a.barWidth == b.barWidth && a.waterfallWidth == b.waterfallWidth && a.columns.elementsEqual(b.columns) { $0 == $1 }
    }
}
