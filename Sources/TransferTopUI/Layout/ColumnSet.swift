/// Which columns the task table keeps when not all of them fit (80 columns): the phases (the
/// default), the speeds and ETAs (and sizes), or the file names instead of the URLs. The `v` key
/// cycles them; from the width where everything fits, only `files` changes what is shown.
public enum ColumnSet: String, Sendable, Equatable, CaseIterable {
    case phases, sizes, files

    public var next: ColumnSet {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// What the status line says the set shows.
    public var summary: String {
        switch self {
        case .phases: return "columns: phases (TTFB, TIMING)"
        case .sizes: return "columns: speed and ETA (and DONE/TOTAL where it fits)"
        case .files: return "columns: file names instead of URLs"
        }
    }

    /// The order in which columns go when the URL (or FILE) column would get too little.
    var dropOrder: [TaskColumns.Column] {
        switch self {
        case .phases, .files: return TaskColumns.dropOrder
        // DONE/TOTAL (17 wide) goes before SPEED and ETA, which fit at 80 columns.
        case .sizes: return [.kind, .proto, .tls, .dns, .connect, .waterfall, .ttfb, .size, .speed, .eta, .result]
        }
    }
}
