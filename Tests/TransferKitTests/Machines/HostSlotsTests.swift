import Foundation
import Testing
@testable import TransferKit

/// The per-host bookkeeping of handles in the multi and the engine's queue, as scripts of
/// calls with plain values standing for transfers: no libcurl.
@Suite struct HostSlotsTests {
    final class Waiter {
        let name: String
        init(_ name: String) { self.name = name }
    }

    let host = "http://127.0.0.1:1"
    let normal: Float = 0.5

    /// The key the transfer thread builds from the parts it read is the URL's key as it was
    /// always written: scheme and host lowercased, the port or -1.
    @Test func aKeyFromPartsIsTheURLsKey() throws {
        for text in ["http://127.0.0.1:1/x", "HTTPS://Example.COM/a?b", "http://[::1]:8080/", "ftp://u:p@host.example/f",
                     "file:///tmp/x", "data:,hi", "http://h%C3%A9st/"] {
            let url = try #require(URL(string: text))
            let parts = HostSlots<Waiter>.key(scheme: url.scheme?.lowercased() ?? "", host: url.host, port: url.port)
            #expect(parts == "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)")
        }
        #expect(HostSlots<Waiter>.key(URL(string: "HTTP://A.b:81/")!) == "http://a.b:81")
    }

    @Test func aHostTakesAtLeastSixHandlesThenQueues() {
        var slots = HostSlots<Waiter>(connectionsPerHost: 1)
        for i in 0..<6 {
            let r1 = slots.admit(Waiter("\(i)"), key: host, priority: normal, defaultPriority: normal, distant: false)
            #expect(r1)
            slots.attached(host)
        }
        let r2 = slots.admit(Waiter("7"), key: host, priority: normal, defaultPriority: normal, distant: false)
        #expect(!r2)
        #expect(slots.hasWaiting(host))
        let r3 = slots.nextWaiting(host, distant: false)
        #expect(r3 == nil, "no room until a handle leaves")
        slots.detached(host)
        let r4 = slots.nextWaiting(host, distant: false)?.name
        #expect(r4 == "7")
    }

    @Test func aDistantHostGetsMoreStreams() {
        let slots = HostSlots<Waiter>(connectionsPerHost: 6)
        #expect(slots.limit(host, distant: false) == 6)
        #expect(slots.limit(host, distant: true) == 32)
        #expect(HostSlots<Waiter>(connectionsPerHost: 20).limit(host, distant: true) == 80)
        #expect(HostSlots<Waiter>(connectionsPerHost: .max).limit(host, distant: true) == 4 << 20, "no overflow")
    }

    @Test func aPriorityOfItsOwnLimitsTheHostToItsConnections() {
        var slots = HostSlots<Waiter>(connectionsPerHost: 2)
        let r5 = slots.admit(Waiter("a"), key: host, priority: 0.9, defaultPriority: normal, distant: false)
        #expect(r5)
        slots.attached(host)
        let r6 = slots.admit(Waiter("b"), key: host, priority: normal, defaultPriority: normal, distant: false)
        #expect(r6)
        slots.attached(host)
        #expect(slots.limit(host, distant: true) == 2)
        let r7 = slots.admit(Waiter("low"), key: host, priority: 0.1, defaultPriority: normal, distant: false)
        #expect(!r7)
        let r8 = slots.admit(Waiter("high"), key: host, priority: 1.0, defaultPriority: normal, distant: false)
        #expect(!r8)
        slots.detached(host)
        let r9 = slots.nextWaiting(host, distant: false)?.name
        #expect(r9 == "high")
    }

    @Test func aReleasedSlotLetsTheNextOneIn() {
        var slots = HostSlots<Waiter>(connectionsPerHost: 6)
        for i in 0..<6 {
            _ = slots.admit(Waiter("\(i)"), key: host, priority: normal, defaultPriority: normal, distant: false)
            slots.attached(host)
        }
        _ = slots.admit(Waiter("queued"), key: host, priority: normal, defaultPriority: normal, distant: false)
        slots.release(host)
        #expect(slots.inUse(host) == 5)
        let r10 = slots.nextWaiting(host, distant: false)?.name
        #expect(r10 == "queued")
        slots.attached(host)
        slots.retake(host)
        #expect(slots.inUse(host) == 7, "a resumed transfer may briefly exceed the limit")
    }

    @Test func queueHeadsStandForEachHost() {
        var slots = HostSlots<Waiter>(connectionsPerHost: 0)
        for i in 0..<6 { _ = slots.admit(Waiter("\(i)"), key: "a", priority: normal, defaultPriority: normal, distant: false); slots.attached("a") }
        for i in 0..<6 { _ = slots.admit(Waiter("\(i)"), key: "b", priority: normal, defaultPriority: normal, distant: false); slots.attached("b") }
        _ = slots.admit(Waiter("a1"), key: "a", priority: normal, defaultPriority: normal, distant: false)
        _ = slots.admit(Waiter("a2"), key: "a", priority: normal, defaultPriority: normal, distant: false)
        _ = slots.admit(Waiter("b1"), key: "b", priority: normal, defaultPriority: normal, distant: false)
        #expect(Set(slots.queueHeads.map(\.name)) == ["a1", "b1"])
        slots.removeAllWaiting()
        #expect(slots.queueHeads.isEmpty)
    }
}
