import Foundation
import TransferModel

/// How many of a host's transfers are in libcurl's multi, and the engine's queue for the rest.
/// libcurl 7.88 walks every easy handle in the multi on each `curl_multi_perform`, including
/// those parked behind its per-host connection limit, so thousands of queued tasks wait here
/// instead, highest `priority` first and FIFO among equals. Pure bookkeeping: the engine adds
/// and removes the handles.
///
/// Limits per host:
/// - `attachLimit`: one handle per connection, and at least `minimumAttached`, so HTTP/2
///   multiplexes even on a session limited to one connection. No more: a freed connection
///   gets the next handle in the same turn anyway. With 32 per host (the limit until
///   DECISIONS 143), 5,000 small files over HTTP/2 cost 10-20 % more CPU and wall time than
///   with 6 streams, as `curl --parallel-max 6` runs them.
/// - `connectionLimit` for a host that has had a task with a priority of its own: libcurl's
///   queue ignores priority, so every task beyond one per connection waits here in order
///   (DECISIONS 65).
/// - `multiplexLimit` for a host whose HTTP/2 round trip is long (`DistantHosts`): there the
///   number in flight sets the speed, where on loopback more streams only cost CPU.
/// A suspended connected transfer keeps its handle but gives its slot back (`release`), so
/// suspended tasks do not stop the rest of their host.
struct HostSlots<Waiter> {
    static var minimumAttached: Int { 6 }
    /// The session's limit; it may change while transfers run (`TransferEngine+Limits`).
    var connectionsPerHost: Int
    private(set) var attached: [String: Int] = [:]
    private(set) var released: [String: Int] = [:]
    private var queues: [String: PriorityFIFO<Waiter>] = [:]
    private(set) var prioritizedHosts: Set<String> = []

    init(connectionsPerHost: Int) { self.connectionsPerHost = connectionsPerHost }

    /// What a hop's URL is counted under: scheme, host and port as written.
    static func key(_ url: URL) -> String {
        key(scheme: url.scheme?.lowercased() ?? "", host: url.host, port: url.port)
    }

    /// `key(url)` from parts already read (`scheme` lowercased): the transfer thread reads them
    /// once per hop, and Foundation's accessors parse the URL on each call.
    static func key(scheme: String, host: String?, port: Int?) -> String {
        "\(scheme)://\(host?.lowercased() ?? ""):\(port ?? -1)"
    }

    var attachLimit: Int { max(connectionsPerHost, Self.minimumAttached) }
    var connectionLimit: Int { max(1, connectionsPerHost) }
    /// Capped before multiplying: `4 * Int.max` would trap.
    var multiplexLimit: Int { max(4 * min(connectionsPerHost, 1 << 20), 32) }

    func limit(_ key: String, distant: Bool) -> Int {
        if !prioritizedHosts.isEmpty, prioritizedHosts.contains(key) { return connectionLimit }
        return distant ? multiplexLimit : attachLimit
    }

    /// Handles of this host in the multi that count against its limit.
    func inUse(_ key: String) -> Int { attached[key, default: 0] - released[key, default: 0] }

    func hasRoom(_ key: String, distant: Bool) -> Bool { inUse(key) < limit(key, distant: distant) }

    /// A transfer of `key` wants a handle: true when it may have one now; false when it was
    /// queued. A priority of its own makes the host prioritized from now on.
    mutating func admit(_ waiter: Waiter, key: String, priority: Float, defaultPriority: Float, distant: Bool) -> Bool {
        if priority != defaultPriority { prioritizedHosts.insert(key) }
        if hasRoom(key, distant: distant) { return true }
        queues[key, default: PriorityFIFO()].push(waiter, priority: priority)
        return false
    }

    mutating func attached(_ key: String) { attached[key, default: 0] += 1 }
    mutating func detached(_ key: String) { attached[key, default: 1] -= 1 }
    mutating func release(_ key: String) { released[key, default: 0] += 1 }
    mutating func retake(_ key: String) { released[key, default: 1] -= 1 }

    /// The next queued transfer of `key` when the host has room (a host that became
    /// prioritized may still be above its new limit: popping then would only push the task
    /// back, behind its equals). The engine drops it if it is no longer wanted.
    mutating func nextWaiting(_ key: String, distant: Bool) -> Waiter? {
        guard hasRoom(key, distant: distant) else { return nil }
        // Popped in place: copying the queue out of the dictionary would retain every element,
        // and `queues[key]?.pop()` allocated three times per call (`Dictionary.inPlace`).
        return queues.inPlace(key) { $0.pop() } ?? nil
    }

    func hasWaiting(_ key: String) -> Bool { queues[key]?.isEmpty == false }

    /// The hosts with transfers queued here.
    var waitingHosts: [String] { queues.compactMap { $0.value.isEmpty ? nil : $0.key } }

    /// Each host's first queued transfer: it stands for its queue in the timer scan.
    var queueHeads: [Waiter] { queues.values.compactMap(\.first) }

    mutating func removeAllWaiting() { queues.removeAll() }
}
