import Foundation
import Prometheus
import TransferKit

/// What `--prometheus` serves at /metrics: tasks by state, bytes moved, outcomes,
/// and histograms of the network phases labelled by host and protocol — for users who watch
/// many machines in Prometheus/Grafana instead of one terminal. Fed by the Runner: each engine
/// event costs a dictionary update, each finished task a few histogram records.
public final class FleetMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// Each live task's last state, and the tasks that completed, for the
    /// `transfertop_tasks{state}` gauges. Events of one task come from different threads (the
    /// delegate queue delivers completion, a key press emits `suspended`), so one that arrives
    /// after completion is dropped rather than counted back into a live state.
    private let states = Locked<(live: [TaskID: TaskState], completed: Set<TaskID>)>(([:], []))
    private let stateGauges: [TaskState: Gauge]
    private let received: Counter
    private let sent: Counter
    /// Per live task, how many of its hops are already in the phase histograms (observed at
    /// their response head); the completion records only the rest, then forgets the task.
    private let observedHops = Locked<[TaskID: Int]>([:])

    /// Seconds, from a loopback handshake (0.5 ms) to a slow far server (10 s).
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    static let phases = ["dns", "connect", "tls", "ttfb"]

    static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "transfertop", metricName: metric, unitName: unit, helpText: help)
    }

    // Computed, not stored: the package's descriptor type is not Sendable.
    static var tasks: MetricNameDescriptor { name("tasks", "", "Tasks in each state (suspended, running, canceling, completed).") }
    static var finished: MetricNameDescriptor {
        name("tasks_finished", "total", "Finished tasks by outcome: ok, http_error (4xx/5xx), cancelled, error.")
    }
    static func phaseName(_ phase: String) -> MetricNameDescriptor {
        name(phase, "seconds", "Time of the \(phase) phase per transaction, labelled by host and protocol.")
    }

    public init() {
        var gauges: [TaskState: Gauge] = [:]
        for state in TaskState.allCases {
            gauges[state] = registry.makeGauge(descriptor: Self.tasks, labels: [("state", state.rawValue)])
        }
        stateGauges = gauges
        received = registry.makeCounter(descriptor: Self.name("bytes_received", "total", "Response body bytes received."))
        sent = registry.makeCounter(descriptor: Self.name("bytes_sent", "total", "Request body bytes sent."))
    }

    /// An engine event: state changes move a task between gauges, progress adds bytes.
    public func observe(_ event: TransferEvent) {
        switch event.kind {
        case .taskStateChanged(let state):
            guard let task = event.taskIdentifier else { return }
            let id = TaskID(session: event.sessionID, task: task)
            // A completed task leaves the live table; the completed set costs 16 bytes a task.
            let change: (old: TaskState?, counted: Bool) = states.withLock { s in
                if s.completed.contains(id) { return (nil, false) }
                if state == .completed { s.completed.insert(id); return (s.live.removeValue(forKey: id), true) }
                return (s.live.updateValue(state, forKey: id), true)
            }
            guard change.counted else { return }
            if let old = change.old { stateGauges[old]?.decrement() }
            stateGauges[state]?.increment()
        case .progress(let r, let s):
            if r > 0 { received.increment(by: r) }
            if s > 0 { sent.increment(by: s) }
        default:
            break
        }
    }

    /// Whether the task's first response bytes have not been seen yet: the Runner then hands
    /// its snapshot to `observeHeads`, once per task (later progress costs this lookup only).
    public func awaitsHeads(of id: TaskID) -> Bool {
        observedHops.withLock { $0[id] == nil }
    }

    /// A running task whose response began: the phases of its hops that have a response head
    /// (DNS, connect, TLS and TTFB are all known then) go into the histograms now, so a long
    /// download's phases are in /metrics while it runs, not only when it ends. Hops after
    /// these (a restart) are recorded at completion.
    public func observeHeads(_ task: TaskSnapshot) {
        let hops = task.metrics.transactionMetrics
        let headed = hops.prefix { $0.responseStartDate != nil }.count
        let from = observedHops.withLock { seen -> Int? in
            let done = seen[task.id] ?? 0
            guard headed > done else { return nil }
            seen[task.id] = headed
            return done
        }
        guard let from else { return }
        recordPhases(task, hops: from..<headed)
    }

    /// A finished task: its outcome, and the phases of every hop not observed at its head.
    public func record(_ task: TaskSnapshot) {
        registry.makeCounter(descriptor: Self.finished, labels: [("outcome", Self.outcome(task))]).increment()
        let from = observedHops.withLock { $0.removeValue(forKey: task.id) } ?? 0
        let count = task.metrics.transactionMetrics.count
        recordPhases(task, hops: Swift.min(from, count)..<count)
    }

    private func recordPhases(_ task: TaskSnapshot, hops range: Range<Int>) {
        let hops = task.metrics.transactionMetrics
        for i in range {
            let hop = hops[i]
            let timings = TransactionTimings(hop, transactionEnd: task.metrics.transactionEnd(at: i)).completedPhases
            // A live hop's record gets its protocol when it ends; the task's response has it.
            let name = hop.networkProtocolName ?? (i == hops.count - 1 ? task.networkProtocolName : nil)
            let labels = [("host", URL(string: hop.url)?.host ?? "unknown"),
                          ("protocol", name?.lowercased() ?? "unknown")]
            for (phase, ms) in zip(Self.phases, [timings.dnsMs, timings.connectMs, timings.tlsMs, timings.ttfbMs]) {
                guard let ms else { continue }
                registry.makeValueHistogram(descriptor: Self.phaseName(phase), labels: labels, buckets: Self.buckets).record(ms / 1000)
            }
        }
    }

    static func outcome(_ task: TaskSnapshot) -> String {
        if let error = task.error { return error.code == .cancelled ? "cancelled" : "error" }
        if let status = task.statusCode, status >= 400 { return "http_error" }
        return "ok"
    }

    /// The Prometheus text exposition format.
    public func text() -> String { registry.emitToString() }
}
