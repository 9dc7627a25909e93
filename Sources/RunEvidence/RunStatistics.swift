/// Where hops went: a host and the protocol that answered it. A host spoken to over HTTP/1.1
/// and h2 has two groups, since the two are different animals for latency.
public struct HostKey: Hashable, Comparable, Sendable {
    public var host: String
    public var protocolName: String

    public init(host: String, protocolName: String) {
        self.host = host
        self.protocolName = protocolName
    }

    public static func < (a: Self, b: Self) -> Bool { (a.host, a.protocolName) < (b.host, b.protocolName) }
}

/// One group's counts and phase histograms.
public struct GroupStatistics: Sendable {
    /// Hops (transactions) counted, and how many failed: a transport error, or a response of
    /// 400 or more (as k6's `http_req_failed`); a cancelled task's hop is not a failure.
    public var count = 0
    public var errors = 0
    public var phases: [EvidencePhase: PhaseHistogram] = [:]

    public init() {}

    public mutating func add(_ s: HopSample) {
        count += 1
        if s.failed { errors += 1 }
        for (phase, ms) in s.milliseconds { phases[phase, default: PhaseHistogram()].record(milliseconds: ms) }
    }

    public mutating func add(_ other: GroupStatistics) {
        count += other.count
        errors += other.errors
        for (phase, h) in other.phases { phases[phase, default: PhaseHistogram()].add(h) }
    }

    public func histogram(_ phase: EvidencePhase) -> PhaseHistogram { phases[phase] ?? PhaseHistogram() }

    /// Errors as a percentage of hops; nil without hops.
    public var errorPercent: Double? { count > 0 ? Double(errors) * 100 / Double(count) : nil }
}

/// A run's evidence: per host and protocol, every hop's phases. Pure; the CLI feeds it each
/// finished task (`add`) and reads the tables and budgets at the end.
public struct RunStatistics: Sendable {
    public private(set) var groups: [HostKey: GroupStatistics] = [:]

    public init() {}

    public init(_ samples: [HopSample]) {
        for s in samples { add(s) }
    }

    public mutating func add(_ s: HopSample) {
        groups[HostKey(host: s.host, protocolName: s.protocolName), default: GroupStatistics()].add(s)
    }

    /// The groups in table order: by host, then protocol.
    public var sortedGroups: [(key: HostKey, value: GroupStatistics)] { groups.sorted { $0.key < $1.key } }

    /// Every group merged (a budget without `host=`).
    public var all: GroupStatistics {
        var merged = GroupStatistics()
        for g in groups.values { merged.add(g) }
        return merged
    }

    /// The groups of `host` merged, over its protocols. `host` matches a group's `host:port`
    /// exactly, or its host name alone when the name has no port (every port of it). Nil when
    /// no hop went there.
    public func host(_ host: String) -> GroupStatistics? {
        let wanted = host.lowercased()
        let matching = groups.filter { key, _ in key.host == wanted || Self.hostName(key.host) == wanted }
        guard !matching.isEmpty else { return nil }
        var merged = GroupStatistics()
        for g in matching.values { merged.add(g) }
        return merged
    }

    /// `example.org:8080` → `example.org`, `[::1]:8443` → `[::1]`.
    static func hostName(_ authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") { return String(authority[...close]) }
        return String(authority.prefix { $0 != ":" })
    }
}
