import Foundation
import TransferModel

/// The five phases the evidence reports, in table order. docs/metrics.md defines each
/// duration; `connect` is TCP only (TLS has its own phase) and `ttfb` counts from the end of
/// the queue, as the CSV export's columns do.
public enum EvidencePhase: String, CaseIterable, Sendable, Comparable {
    case dns, connect, tls, ttfb, total

    public static func < (a: Self, b: Self) -> Bool { a.order < b.order }
    var order: Int { Self.allCases.firstIndex(of: self)! }
}

/// One hop (transaction) as the statistics see it: where it went, what it measured, whether it
/// failed. Made from a live snapshot or from a row of the CSV export, so a run's summary and
/// `compare` of two exports count the same way.
public struct HopSample: Sendable, Equatable {
    /// `host` or `host:port` as the URL names it (a port only when the URL gives one).
    public var host: String
    /// `http/1.1`, `h2`, … or `-` when no response said.
    public var protocolName: String
    /// Milliseconds per phase; an absent phase (a reused connection's DNS and connect, plain
    /// HTTP's TLS, a phase a failure cut short) has no entry, never a zero.
    public var milliseconds: [EvidencePhase: Double]
    public var failed: Bool

    /// The longest phase an export may say a hop took: a million hours. Past it a reader refuses
    /// (the CSV) or leaves out (HAR, whose writers use -1 for "not known") the value, so that
    /// sums of a hop's phases stay finite and every scale drawn from them holds.
    public static let maxMilliseconds = 3.6e12

    public init(host: String, protocolName: String, milliseconds: [EvidencePhase: Double], failed: Bool) {
        self.host = host
        self.protocolName = protocolName
        self.milliseconds = milliseconds
        self.failed = failed
    }

    /// Every hop of a finished task; a task that never sent a request is one sample with no
    /// durations (it still counts, and as an error when it failed).
    public static func samples(_ task: TaskSnapshot) -> [HopSample] {
        let hops = task.metrics.transactionMetrics
        let taskFailed = task.error.map { $0.code != .cancelled } ?? false
        guard !hops.isEmpty else {
            return [HopSample(host: authority(task.currentURL), protocolName: "-", milliseconds: [:], failed: taskFailed)]
        }
        return hops.indices.map { i in
            let m = hops[i]
            let t = TransactionTimings(m, transactionEnd: task.metrics.transactionEnd(at: i)).completedPhases
            let last = i == hops.count - 1
            let failed = m.errorDescription != nil || (last && taskFailed) || (m.statusCode ?? 0) >= 400
            return HopSample(host: authority(m.url), protocolName: m.networkProtocolName?.lowercased() ?? "-",
                             milliseconds: durations(dns: t.dnsMs, connect: t.connectMs, tls: t.tlsMs, ttfb: t.ttfbMs, total: t.totalMs),
                             failed: failed)
        }
    }

    static func durations(dns: Double?, connect: Double?, tls: Double?, ttfb: Double?, total: Double?) -> [EvidencePhase: Double] {
        var d: [EvidencePhase: Double] = [:]
        for (phase, v) in zip(EvidencePhase.allCases, [dns, connect, tls, ttfb, total]) { if let v { d[phase] = v } }
        return d
    }

    /// The authority of a URL in lower case, without user information: `example.org`,
    /// `127.0.0.1:8080`, `[::1]:8443`. Text that is no URL stays as it is.
    public static func authority(_ url: String) -> String {
        guard let authority = URLAuthority(url)?.hostAndPort else { return url.isEmpty ? "-" : url }
        return authority.isEmpty ? "-" : authority.lowercased()
    }
}
