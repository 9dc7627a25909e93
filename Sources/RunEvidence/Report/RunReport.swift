import Foundation

/// What a report shows, computed from one run's hops (and another's to compare): pure, so
/// the HTML and the text renderers only lay it out.
public struct RunReport: Sendable {
    /// One task's hops in hop order: a redirect chain or a retried request.
    public struct TaskRow: Sendable {
        public var task: String
        public var hops: [ReportHop]
        /// One of the tasks kept because it holds one of the slowest hops (a large run).
        public var slowest: Bool
    }

    public struct HostHistograms: Sendable {
        public var key: HostKey
        public var phases: [(phase: EvidencePhase, bins: HistogramBins)]
    }

    /// At most this many hops are drawn in the waterfall; past it, a sample (see `waterfall`).
    public static let defaultDrawLimit = 1000
    /// Rows of the slowest-hops and errors tables.
    public static let slowestCount = 20
    public static let errorLimit = 100
    /// Hosts (host and protocol) that get histograms, the busiest first.
    public static let histogramHostLimit = 12

    public var name: String
    public var hopCount: Int
    public var taskCount: Int
    public var statistics: RunStatistics
    /// The earliest hop start and the span from it to the last hop's end, in ms.
    public var start: Date?
    public var spanMs: Double
    /// The tasks the waterfall draws, in start order; all of them unless the run has more
    /// hops than the limit.
    public var waterfall: [TaskRow]
    public var drawnHops: Int
    public var histograms: [HostHistograms]
    public var histogramHostsLeftOut: Int
    public var slowest: [ReportHop]
    public var errors: [ReportHop]
    public var errorCount: Int
    public var comparison: RunComparison?
    public var comparedName: String?

    public init(name: String, hops: [ReportHop], compareWith after: (name: String, hops: [ReportHop])? = nil,
                settings: RunComparison.Settings = .init(), drawLimit: Int = defaultDrawLimit) {
        self.name = name
        hopCount = hops.count { $0.hop != nil }
        let samples = hops.map(\.sample)
        statistics = RunStatistics(samples)

        var byTask: [String: [ReportHop]] = [:]
        var order: [String] = []
        for h in hops {
            if byTask[h.task] == nil { order.append(h.task) }
            byTask[h.task, default: []].append(h)
        }
        taskCount = order.count
        let started = hops.compactMap(\.start)
        start = started.min()
        let runStart = start
        spanMs = hops.reduce(0) { span, h in
            guard let s = h.start, let runStart else { return span }
            return max(span, s.timeIntervalSince(runStart) * 1000 + h.barMs)
        }

        // Tasks in the order their first hop started; a task with no start goes last.
        let tasks: [TaskRow] = order.compactMap { id -> (TaskRow, Date?)? in
            let taskHops = byTask[id]!.filter { $0.hop != nil }.sorted { ($0.hop ?? 0) < ($1.hop ?? 0) }
            return taskHops.isEmpty ? nil : (TaskRow(task: id, hops: taskHops, slowest: false), taskHops.compactMap(\.start).min())
        }.sorted { a, b in
            switch (a.1, b.1) {
            case let (x?, y?): x < y
            case (_?, nil): true
            default: false
            }
        }.map(\.0)
        let ranked = hops.filter { $0.hop != nil }.sorted { $0.barMs > $1.barMs }
        slowest = Array(ranked.prefix(Self.slowestCount))
        (waterfall, drawnHops) = Self.sample(tasks, slowestHops: ranked, limit: drawLimit)

        let failed = hops.filter(\.failed)
        errorCount = failed.count
        errors = Array(failed.prefix(Self.errorLimit))

        var values: [HostKey: [EvidencePhase: [Double]]] = [:]
        for s in samples {
            for (phase, v) in s.milliseconds { values[HostKey(host: s.host, protocolName: s.protocolName), default: [:]][phase, default: []].append(v) }
        }
        let busiest = statistics.groups.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
            .prefix(Self.histogramHostLimit).map(\.key).sorted()
        histograms = busiest.map { key in
            HostHistograms(key: key, phases: EvidencePhase.allCases.compactMap { phase in
                (values[key]?[phase]).flatMap { HistogramBins($0) }.map { (phase, $0) }
            })
        }
        histogramHostsLeftOut = statistics.groups.count - busiest.count

        if let after {
            comparison = RunComparison(before: samples, after: after.hops.map(\.sample), settings: settings)
            comparedName = after.name
        }
    }

    /// All tasks when their hops fit `limit`; otherwise the tasks of the slowest hops (up to a
    /// fifth of the limit) and then every k-th task in start order until the limit is reached,
    /// so the picture keeps the run's shape and its outliers. Returned in start order.
    static func sample(_ tasks: [TaskRow], slowestHops: [ReportHop], limit: Int) -> ([TaskRow], Int) {
        let total = tasks.reduce(0) { $0 + $1.hops.count }
        if total <= limit { return (tasks, total) }
        var chosen = Set<String>()
        var slow = Set<String>()
        var drawn = 0
        let hopsOf = Dictionary(uniqueKeysWithValues: tasks.map { ($0.task, $0.hops.count) })
        for h in slowestHops where drawn < limit / 5 {
            guard !chosen.contains(h.task), let n = hopsOf[h.task], drawn + n <= limit else { continue }
            chosen.insert(h.task)
            slow.insert(h.task)
            drawn += n
        }
        let rest = tasks.filter { !chosen.contains($0.task) }
        let meanHops = Double(rest.reduce(0) { $0 + $1.hops.count }) / Double(max(1, rest.count))
        let step = max(1, Int((Double(rest.count) * meanHops / Double(max(1, limit - drawn))).rounded(.up)))
        for (i, t) in rest.enumerated() where i % step == 0 && drawn + t.hops.count <= limit {
            chosen.insert(t.task)
            drawn += t.hops.count
        }
        let rows = tasks.filter { chosen.contains($0.task) }.map { t in
            TaskRow(task: t.task, hops: t.hops, slowest: slow.contains(t.task))
        }
        return (rows, drawn)
    }

    /// Milliseconds from the run's start to the hop's start; nil when unknown.
    public func offsetMs(_ hop: ReportHop) -> Double? {
        guard let s = hop.start, let start else { return nil }
        return s.timeIntervalSince(start) * 1000
    }
}
