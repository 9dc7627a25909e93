import CCurl
import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// How many transfers of one host libcurl holds at once (DECISIONS 143, 146): one per
/// connection (at least 6), not counting suspended ones, and more HTTP/2 streams for a host
/// far enough away. Each test waits for requests to arrive at a server gate: a limit that
/// held them back would leave the test waiting, never passing by chance.
@Suite struct HostSlotTests {
    func request(_ base: String, gate: String) -> TransferRequest {
        TransferRequest(url: url("\(base)/bytes/10?headGate=\(gate)"))
    }

    @Test func suspendedTransfersLeaveTheirHostsSlotToTheNext() async throws {
        let server = try await TestServer.get()
        // Never widened: the seventh stream can only start because the six were suspended.
        let session = TransferSession(configuration: ephemeralConfig { $0.multiplexWideningRTT = 3600 })
        defer { session.finishTasksAndInvalidate() }
        let held = UUID().uuidString, next = UUID().uuidString
        defer { server.openGate(held); server.openGate(next) }
        let done = Counter()
        let six = (0..<6).map { _ in
            session.dataTask(with: request(server.httpsBase, gate: held)) { _, _, e in if e == nil { _ = done.increment() } }
        }
        six.forEach { $0.resume() }
        try await server.waitForGate(held, arrivals: 6)
        let seventh = session.dataTask(with: request(server.httpsBase, gate: next)) { _, _, e in if e == nil { _ = done.increment() } }
        seventh.resume()
        six.forEach { $0.suspend() }
        try await server.waitForGate(next, arrivals: 1)
        server.openGate(next)
        server.openGate(held)
        six.forEach { $0.resume() }
        try await waitForCount("seven completions", reaches: 7) { done.value }
    }

    @Test func aDistantHTTP2HostGetsMoreStreamsThanConnections() async throws {
        let server = try await TestServer.get()
        // Every host counts as distant: even loopback's round trip is at least 0 s.
        let session = TransferSession(configuration: ephemeralConfig { $0.multiplexWideningRTT = 0 })
        defer { session.finishTasksAndInvalidate() }
        let (_, first) = try await session.data(from: url("\(server.httpsBase)/bytes/10"))
        #expect(first.networkProtocolName == "h2")
        let gate = UUID().uuidString
        defer { server.openGate(gate) }
        let done = Counter()
        for _ in 0..<20 {
            session.dataTask(with: request(server.httpsBase, gate: gate)) { _, _, e in if e == nil { _ = done.increment() } }.resume()
        }
        // Six connections' worth would hold 14 of them back until the gate opens.
        try await server.waitForGate(gate, arrivals: 20)
        server.openGate(gate)
        try await waitForCount("twenty completions", reaches: 20) { done.value }
    }

    @Test func transfersWaitingWhenTheirHostWidensAllStartAndComplete() async throws {
        // The host widens at its first response head, inside libcurl's header callback, while
        // 26 transfers wait in the engine: they must start after that perform (adding a handle
        // inside a callback fails), and none may be lost. The first transfer answers at once;
        // the 31 behind it are held at a gate, which all of them reach only if the host widened
        // (six handles would hold 25 back until the gate opens).
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig { $0.multiplexWideningRTT = 0 })
        defer { session.finishTasksAndInvalidate() }
        let gate = UUID().uuidString
        defer { server.openGate(gate) }
        let done = Counter(), failed = Counter()
        func expect(_ request: TransferRequest, bytes: Int) {
            session.dataTask(with: request) { d, _, e in
                if e != nil || d?.count != bytes { _ = failed.increment() }
                _ = done.increment()
            }.resume()
        }
        expect(TransferRequest(url: url("\(server.httpsBase)/bytes/1")), bytes: 1)
        for _ in 1...31 { expect(request(server.httpsBase, gate: gate), bytes: 10) }
        try await server.waitForGate(gate, arrivals: 31)
        server.openGate(gate)
        try await waitForCount("thirty-two completions", reaches: 32) { done.value }
        #expect(failed.value == 0)
    }

    @Test func theKernelsRoundTripIsReadFromATCPSocketOnly() async throws {
        let server = try await TestServer.get()
        let port = try #require(URL(string: server.httpBase)?.port)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        #expect(tk_tcp_rtt_micros(fd) >= 0, "a connected TCP socket has a round trip")
        var pipeEnds: [Int32] = [0, 0]
        try #require(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        #expect(tk_tcp_rtt_micros(pipeEnds[0]) == -1, "a pipe has none")
        #expect(tk_tcp_rtt_micros(-1) == -1)
    }

    @Test func theRoundTripRule() {
        #expect(!DistantHosts.isDistant(rttMicros: -1, threshold: 0), "no socket to ask")
        #expect(DistantHosts.isDistant(rttMicros: 0, threshold: 0))
        #expect(!DistantHosts.isDistant(rttMicros: 1_999, threshold: 0.002))
        #expect(DistantHosts.isDistant(rttMicros: 2_000, threshold: 0.002))
        #expect(DistantHosts.isDistant(rttMicros: 50_000, threshold: 0.002))
    }
}
