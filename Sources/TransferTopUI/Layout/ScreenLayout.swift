/// Rows of the screen given to each pane; every pane is full width.
///
/// A pane's first row is its title rule. Panes are dropped as the terminal shrinks: the
/// sessions pane and event log first, then the detail shrinks; below 40x10 nothing is laid
/// out but a message.
public struct ScreenLayout: Sendable, Equatable {
    public struct Rows: Sendable, Equatable {
        public var top: Int
        public var height: Int
        public var bodyTop: Int { top + 1 }
        public var bodyHeight: Int { Swift.max(0, height - 1) }
    }

    public static let minimumWidth = 40
    public static let minimumHeight = 10

    public var width: Int
    public var height: Int
    public var sessions: Rows?
    public var tasks: Rows
    public var detail: Rows?
    public var events: Rows?

    public var isTooSmall: Bool { width < Self.minimumWidth || height < Self.minimumHeight }
    public var statusRow: Int { height - 2 }
    public var footerRow: Int { height - 1 }
    /// Task rows that fit under the title and the column headings.
    public var visibleTaskRows: Int { Swift.max(0, tasks.height - 2) }

    /// `taskCount`: the rows the task table has to show; rows it would leave blank go to the
    /// event log when there is one (no wasted blank rows). `detailLines` and
    /// `eventCount`: the lines the detail pane and the event log have to show; neither pane is
    /// taller than its content (DECISIONS 60), the task table keeps what they leave.
    public init(width: Int, height: Int, detailShown: Bool, sessionCount: Int, taskCount: Int? = nil,
                detailLines: Int? = nil, eventCount: Int? = nil) {
        self.width = width
        self.height = height
        let body = Swift.max(0, height - 3)  // header, status line, footer
        let tall = height >= 30
        let sessionRows = height >= 20 ? 1 + Swift.min(Swift.max(1, sessionCount), tall ? Swift.max(3, body / 6) : 3) : 0
        var eventRows = tall ? 1 + Swift.max(3, body / 6) : (height >= 20 && !detailShown ? 4 : 0)
        // A title and one row at least, so the pane (and its focus) does not come and go.
        let eventContent = eventCount.map { 1 + Swift.max(1, $0) } ?? Int.max
        eventRows = Swift.min(eventRows, eventContent)
        var rest = body - sessionRows - eventRows
        var detailRows = detailShown ? Self.detailHeight(rest: rest) : 0
        if let detailLines, detailRows > 0 { detailRows = Swift.min(detailRows, 1 + Swift.max(1, detailLines)) }
        if eventRows > 0, let taskCount {
            // The table keeps its title, headings and at least one row.
            let spare = Swift.min(eventContent - eventRows, Swift.max(0, rest - detailRows - 2 - Swift.max(1, taskCount)))
            eventRows += spare
            rest -= spare
        }
        var y = 1
        sessions = sessionRows > 0 ? Rows(top: y, height: sessionRows) : nil
        y += sessionRows
        tasks = Rows(top: y, height: rest - detailRows)
        y += rest - detailRows
        detail = detailRows > 0 ? Rows(top: y, height: detailRows) : nil
        y += detailRows
        events = eventRows > 0 ? Rows(top: y, height: eventRows) : nil
    }

    /// A bit under half of what is left, but the task table keeps a title, headings and a row.
    static func detailHeight(rest: Int) -> Int {
        Swift.max(0, Swift.min(rest - 3, Swift.max(3, rest * 11 / 20)))
    }
}
