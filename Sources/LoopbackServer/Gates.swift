import Foundation
import NIOCore
import TransferModel

/// Named gates that tests open, so a response waits for an event instead of for time
/// (gates, not sleeps).
///
/// A request names a gate in its query: `headGate=G` holds the response head until G opens;
/// `gate=G&holdAfter=K` sends K body bytes, then holds the rest until G opens
/// (`gate=G1,G2&holdAfter=K1,K2`: held at body offset K1 until G1 opens, then at K2). Every time a
/// response reaches a closed gate (head held, or K bytes written and their writes completed)
/// the gate counts an *arrival*; tests wait for arrivals with ``LoopbackServer/waitForGate``.
/// An open gate stays open: later requests pass it without stopping (and still count).
/// Gate names are the test's own (a UUID, say), so tests sharing a server never meet.
final class GateTable: Sendable {
    private struct Gate {
        var open = false
        var arrivals = 0
        /// Held responses, each resumed on its own event loop when the gate opens.
        var held: [(EventLoop, @Sendable () -> Void)] = []
        /// How to close the connection of each held response.
        var closers: [@Sendable () -> EventLoopFuture<Void>] = []
    }

    private let gates = Locked<[String: Gate]>([:])

    /// Records an arrival; runs `proceed` on `loop` now if G is open, or when it opens.
    /// `close` closes the held response's connection (`closeHeld`).
    func arrive(_ name: String, on loop: EventLoop, close: (@Sendable () -> EventLoopFuture<Void>)? = nil,
                proceed: @escaping @Sendable () -> Void) {
        let isOpen = gates.withLock { g -> Bool in
            g[name, default: Gate()].arrivals += 1
            if g[name]!.open { return true }
            g[name]!.held.append((loop, proceed))
            if let close { g[name]!.closers.append(close) }
            return false
        }
        if isOpen { loop.execute(proceed) }
    }

    /// Takes the closers of the responses held at G; the gate stays closed for later ones.
    func takeClosers(_ name: String) -> [@Sendable () -> EventLoopFuture<Void>] {
        gates.withLock { g in
            defer { g[name]?.closers = [] }
            return g[name]?.closers ?? []
        }
    }

    func open(_ name: String) {
        let held = gates.withLock { g -> [(EventLoop, @Sendable () -> Void)] in
            g[name, default: Gate()].open = true
            defer { g[name]!.held = [] }
            return g[name]!.held
        }
        for (loop, proceed) in held { loop.execute(proceed) }
        gates.withLock { $0[name]!.closers = [] }
    }

    func arrivals(_ name: String) -> Int { gates.withLock { $0[name]?.arrivals ?? 0 } }
}

extension LoopbackServer {
    /// Opens gate `name`: every response held at it continues, later ones pass.
    public func openGate(_ name: String) { gates.open(name) }

    /// Closes the connections of the responses held at gate `name` (at a body gate: a server
    /// whose send timeout gave up on a client that stopped reading; at a head gate: a server
    /// that closed a kept-alive connection as a request came) and returns once they are closed,
    /// with how many there were. The gate stays closed: later responses still stop at it.
    @discardableResult
    public func closeHeldConnections(atGate name: String) async -> Int {
        let closers = gates.takeClosers(name)
        for close in closers {
            // A connection the client closed first is closed all the same.
            try? await close().get()
        }
        return closers.count
    }

    /// How many responses have reached gate `name` so far.
    public func gateArrivals(_ name: String) -> Int { gates.arrivals(name) }

    /// Waits until `count` responses have reached gate `name`. The deadline is generous: it
    /// expires only on a bug, never on a slow machine.
    public func waitForGate(_ name: String, arrivals count: Int = 1, timeout: TimeInterval = 60) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while gates.arrivals(name) < count {
            if Date() > deadline {
                throw GateTimeout(description: "gate \(name): \(gates.arrivals(name)) of \(count) arrivals")
            }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
    }
}

public struct GateTimeout: Error, CustomStringConvertible {
    public var description: String
}
