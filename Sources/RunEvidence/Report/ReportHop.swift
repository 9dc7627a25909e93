import Foundation
import TransferModel

/// The seven parts of a hop's bar in the waterfall, in the order they happen, each with the
/// theme role of the monitor's waterfall (`phaseQueued` … `phaseReceive`, themes/default.toml).
public enum HopPart: String, CaseIterable, Sendable {
    case queued, dns, connect, tls, request, wait, receive
}

/// One hop (transaction) as the report draws it: its task, what it asked, when it started and
/// how long each part took. Read from a `--csv` export or a HAR file (RunFile); `sample` is the
/// same hop as the statistics count it, so the report's tables equal `--summary`'s.
public struct ReportHop: Sendable, Equatable {
    /// `SESSION.TASK` as the monitor names a task (`1.4`), or the task id alone when the file
    /// has no session ids; hops of one task share it (redirects, retries).
    public var task: String
    /// 1-based hop within the task; nil for a task that never sent a request.
    public var hop: Int?
    public var method: String
    /// Redacted, as the exports write it (redacted again when read: the file may be hand-made).
    public var url: String
    public var status: Int?
    /// `http/1.1`, `h2`, … or `-`.
    public var protocolName: String
    /// When the hop was asked for (millisecond resolution in both exports); nil when unknown.
    public var start: Date?
    /// Milliseconds per part; an absent part has no entry.
    public var parts: [HopPart: Double]
    public var ttfbMs: Double?
    public var totalMs: Double?
    /// The hop's error text (redacted), nil on success.
    public var error: String?
    /// A transport error (not a cancellation) or a status of 400 or more, as the summary counts.
    public var failed: Bool

    public init(task: String, hop: Int?, method: String, url: String, status: Int?, protocolName: String, start: Date?,
                parts: [HopPart: Double], ttfbMs: Double?, totalMs: Double?, error: String?, failed: Bool) {
        self.task = task
        self.hop = hop
        self.method = method
        self.url = url
        self.status = status
        self.protocolName = protocolName
        self.start = start
        self.parts = parts
        self.ttfbMs = ttfbMs
        self.totalMs = totalMs
        self.error = error
        self.failed = failed
    }

    public var host: String { HopSample.authority(url) }

    /// The hop as the statistics see it.
    public var sample: HopSample {
        HopSample(host: host, protocolName: protocolName,
                  milliseconds: HopSample.durations(dns: parts[.dns], connect: parts[.connect], tls: parts[.tls],
                                                    ttfb: ttfbMs, total: totalMs),
                  failed: failed)
    }

    /// How long the bar is: the hop's total, or the sum of its parts when the total is unknown.
    public var barMs: Double { totalMs ?? parts.values.reduce(0, +) }
}
