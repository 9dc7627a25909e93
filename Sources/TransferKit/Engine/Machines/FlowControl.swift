/// Where a transfer's easy handle is and whether bytes may move: suspend and resume while
/// queued, connecting or connected, and the pauses that bound memory. Pure: the engine tells it
/// what happened and performs the actions it returns (docs/ARCHITECTURE.md, "The event path").
///
/// Three independent parts, each a closed set of values:
/// - `placement`: not in libcurl (`detached`), queued in the engine for its host (`waiting`),
///   in the multi without a connection (`attached`, which libcurl cannot pause), or
///   `connected`, where a suspended transfer gives its host slot back (`Slot.released`) so
///   suspended tasks do not hold up the rest of their host;
/// - `demand`: what the task asked for, with the time a suspension began;
/// - `holds`: why the engine told libcurl to stop a direction (a delegate deciding on the
///   response, a slow data delegate, a streamed body with no bytes yet). Any combination can
///   happen at once, so they are a set.
struct FlowControl: Equatable {
    enum Placement: Equatable {
        case detached
        case waiting
        case attached
        case connected(Slot)
    }

    enum Slot: Equatable {
        /// Counts against the host's limit of handles in the multi.
        case counted
        /// Suspended: its handle stays in the multi, but not in the host's count.
        case released
    }

    enum Demand: Equatable {
        case running
        case suspended(since: UInt64)
    }

    struct Holds: OptionSet, Equatable {
        let rawValue: UInt8
        /// The data delegate has not answered the response yet and 16 MiB are held.
        static let disposition = Holds(rawValue: 1)
        /// The data delegate has `highWater` chunks it has not consumed.
        static let backpressure = Holds(rawValue: 2)
        /// A streamed request body has no bytes ready (sending only).
        static let body = Holds(rawValue: 4)
        /// The holds that stop receiving.
        static let receiving: Holds = [.disposition, .backpressure]
    }

    enum Action: Equatable {
        /// `curl_easy_pause(ALL)`: HTTP/1.1 stops reading the socket, HTTP/2 the stream.
        case pauseHandle
        /// `curl_easy_pause(CONT)`: may deliver held bytes through the write callback at once.
        case unpauseHandle
        /// `curl_easy_pause(RECV)`: sending goes on, receiving stays held.
        case unpauseSendingOnly
        /// Take the handle out of the multi (no connection yet: it cannot be paused).
        case detach
        /// Start the hop again on a new handle (its earlier attempt was detached).
        case restartHop
        /// The host's count of handles in the multi changes by one (`Slot`).
        case releaseSlot
        case retakeSlot
    }

    private(set) var placement: Placement = .detached
    private(set) var demand: Demand = .running
    private(set) var holds: Holds = []
    /// Nanoseconds spent suspended, ended suspensions only: the resource timeout stops meanwhile.
    private(set) var suspendedTotal: UInt64 = 0

    var isRunning: Bool { demand == .running }
    var isSuspended: Bool { !isRunning }
    var isInMulti: Bool {
        switch placement {
        case .attached, .connected: true
        case .detached, .waiting: false
        }
    }
    /// Neither in the multi nor queued for it.
    var isDetached: Bool { placement == .detached }

    // MARK: the handle's place (the engine's attach, detach and libcurl's prereq callback)

    mutating func queued() { placement = .waiting }

    /// Taken off the engine's queue; the engine attaches it unless it was suspended meanwhile.
    mutating func leftQueue() {
        if placement == .waiting { placement = .detached }
    }

    mutating func attached() { placement = .attached }

    /// A connection is attached to the handle (new or reused): from here `curl_easy_pause` works.
    mutating func connected() {
        if placement == .attached { placement = .connected(.counted) }
    }

    /// Out of the multi: a released slot is taken back, for the engine to uncount it.
    mutating func detached() -> [Action] {
        defer { placement = .detached }
        return placement == .connected(.released) ? [.retakeSlot] : []
    }

    // MARK: what the task asks

    mutating func suspend(now: UInt64) -> [Action] {
        guard demand == .running else { return [] }
        demand = .suspended(since: now)
        switch placement {
        case .connected(.counted):
            placement = .connected(.released)
            return [.pauseHandle, .releaseSlot]
        case .attached:
            // No byte of this hop was received: it starts again on resume.
            return [.detach]
        case .connected(.released), .waiting, .detached:
            // Queued: the queue drops it when its turn comes. Detached: nothing runs.
            return []
        }
    }

    /// `waitsForDecision`: the task is between hops, waiting for the delegate (a redirect, a
    /// challenge, server trust, a body stream): its answer continues the task, not this.
    mutating func resume(now: UInt64, waitsForDecision: Bool) -> [Action] {
        guard case .suspended(let since) = demand else { return [] }
        demand = .running
        suspendedTotal += now >= since ? now - since : 0
        var actions: [Action] = []
        if placement == .connected(.released) {
            placement = .connected(.counted)
            actions.append(.retakeSlot)
        }
        if waitsForDecision { return actions }
        switch placement {
        case .detached: actions.append(.restartHop)
        case .waiting: break
        case .attached, .connected:
            if !holds.contains(.disposition) { actions.append(.unpauseHandle) }
        }
        return actions
    }

    // MARK: holds (the write and read callbacks, and the answers that lift them)

    mutating func hold(_ reason: Holds) { holds.insert(reason) }

    func isHeld(_ reason: Holds) -> Bool { holds.contains(reason) }

    /// The delegate answered the response: held bytes go on.
    mutating func dispositionAnswered() -> [Action] {
        guard holds.remove(.disposition) != nil, isRunning, isInMulti else { return [] }
        return [.unpauseHandle]
    }

    /// The data delegate caught up (at or under the low-water mark).
    mutating func drained() -> [Action] {
        guard holds.remove(.backpressure) != nil, isRunning, !holds.contains(.disposition), isInMulti else { return [] }
        return [.unpauseHandle]
    }

    /// A streamed body has bytes again: sending goes on; receiving stays held if it is.
    mutating func bodyReady() -> [Action] {
        guard holds.remove(.body) != nil, isRunning, isInMulti else { return [] }
        return [holds.isDisjoint(with: .receiving) ? .unpauseHandle : .unpauseSendingOnly]
    }
}
