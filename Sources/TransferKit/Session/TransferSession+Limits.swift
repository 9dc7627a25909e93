import Foundation

/// Limits a running session can change, as aria2 allows while it downloads: bandwidth per task
/// and per session, and connections per host. URLSession has none of these; the engine applies
/// them on its transfer thread (TransferEngine+Limits.swift, DECISIONS 176, 177). A
/// background session's tasks run in the daemon: there these calls change nothing.
extension TransferSession {
    /// The session's bandwidth limit in bytes per second (0: none), shared among its running
    /// transfers; each one's own limit still applies within its share.
    public var rateLimit: Int64 {
        get { core.withLock { $0.rateLimit } }
        set {
            let limit = max(0, newValue)
            core.withLock { $0.rateLimit = limit; $0.limitsChanged = true }
            if backgroundLink == nil { _ = engine.send(.sessionRateLimit(limit)) }
        }
    }

    /// The most connections to one host at a time (`CURLMOPT_MAX_HOST_CONNECTIONS`), starting
    /// as the configuration's `httpMaximumConnectionsPerHost`; at least 1. Raising it starts
    /// tasks waiting for a connection at once; lowering it closes no connection, new ones
    /// keep to it.
    public var maximumConnectionsPerHost: Int {
        get { core.withLock { $0.maximumConnectionsPerHost } }
        set {
            let n = max(1, newValue)
            core.withLock { $0.maximumConnectionsPerHost = n; $0.limitsChanged = true }
            if backgroundLink == nil { _ = engine.send(.connectionsPerHost(n)) }
        }
    }
}

extension TransferTask {
    /// The task's own bandwidth limit in bytes per second (0: none): what it receives, and
    /// what an upload sends. May be set before the task starts and while it runs.
    public var rateLimit: Int64 {
        get { core.withLock { $0.rateLimit } }
        set {
            let limit = max(0, newValue)
            core.withLock { $0.rateLimit = limit }
            if session.backgroundLink == nil { _ = session.engine.send(.rateLimit(self, limit)) }
        }
    }
}
