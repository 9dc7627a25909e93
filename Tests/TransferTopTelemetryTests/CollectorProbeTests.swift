import Foundation
import TestSupport
import Testing
@testable import TransferTopTelemetry

/// `CollectorProbe`: what the exit asks before it sends the last spans, against real sockets
/// on loopback.
@Suite struct CollectorProbeTests {
    @Test func aListeningCollectorIsReachable() async throws {
        let collector = try LoopbackSocket(listening: true)
        #expect(await CollectorProbe.probe("http://127.0.0.1:\(collector.port)/v1/traces") == .reachable)
    }

    /// Bound but not listening: the kernel refuses every connection to it, and nothing else
    /// can take the port while the socket holds it.
    @Test func aPortNothingListensOnIsRefused() async throws {
        let closed = try LoopbackSocket(listening: false)
        let outcome = await CollectorProbe.probe("http://127.0.0.1:\(closed.port)/v1/traces")
        #expect(outcome == .refused("connection refused"))
    }

    @Test func anIPv6LiteralIsProbedWithoutItsBrackets() async throws {
        let listening = try LoopbackSocket(ipv6: true, listening: true)
        #expect(await CollectorProbe.probe("http://[::1]:\(listening.port)/v1/traces") == .reachable)
        let closed = try LoopbackSocket(ipv6: true, listening: false)
        #expect(await CollectorProbe.probe("http://[::1]:\(closed.port)/v1/traces") == .refused("connection refused"))
    }

    @Test func aURLWithoutAHostIsRefusedWithoutAConnection() async {
        #expect(await CollectorProbe.probe("http:///v1/traces") == .refused("no host in the URL"))
    }
}
