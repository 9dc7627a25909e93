/// Where a transaction is now, for a waterfall that grows live.
public enum TransactionPhase: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// Waiting for a free connection (per-host limit).
    case queued
    case dns
    case connect
    case tls
    /// Sending the request (headers and body).
    case request
    /// Request sent, waiting for the first response byte.
    case wait
    /// Receiving the response.
    case receive
    /// The transaction is over.
    case done
}
