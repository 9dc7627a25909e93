import Testing
@testable import TransferKit

/// What a transfer tells about its bytes, as scripts of counts: no transfer, no clock.
@Suite struct ProgressLedgerTests {
    typealias Bytes = ProgressLedger.Bytes

    @Test func totalsArePublishedOnlyWhenTheyChange() {
        var ledger = ProgressLedger()
        #expect(ledger.publish(Bytes(received: 10, sent: 0)) == Bytes(received: 10, sent: 0))
        #expect(ledger.publish(Bytes(received: 10, sent: 0)) == nil)
        #expect(ledger.publish(Bytes(received: 25, sent: 3)) == Bytes(received: 15, sent: 3))
    }

    @Test func aResumedDownloadsEarlierBytesAreNotNews() {
        var ledger = ProgressLedger()
        ledger.setPublishedReceived(1000)
        #expect(ledger.publish(Bytes(received: 1000, sent: 0)) == nil)
        #expect(ledger.publish(Bytes(received: 1500, sent: 0))?.received == 500)
    }

    @Test func eventsCarryTheBytesMovedSinceTheLastOne() {
        var ledger = ProgressLedger()
        #expect(ledger.emit(Bytes(received: 100, sent: 0), now: 1) == Bytes(received: 100, sent: 0))
        #expect(ledger.emit(Bytes(received: 100, sent: 0), now: 2) == nil)
        #expect(ledger.emit(Bytes(received: 150, sent: 0), now: 3) == Bytes(received: 50, sent: 0))
        #expect(ledger.lastEventAt == 3)
    }

    @Test func aCountThatStartsOverIsAllNew() {
        var ledger = ProgressLedger()
        _ = ledger.emit(Bytes(received: 100, sent: 40), now: 1)
        #expect(ledger.emit(Bytes(received: 30, sent: 10), now: 2) == Bytes(received: 30, sent: 10))
    }

    @Test func aContinuationCountsFromZeroWithoutLosingOrRepeatingBytes() {
        // 100 moved, 80 of them in an event; the continuation hop's count starts at 0.
        var ledger = ProgressLedger()
        _ = ledger.emit(Bytes(received: 80, sent: 0), now: 1)
        ledger.continued(afterMoving: 100)
        // The 20 never sent come with the next event, and the new hop's bytes once each, even
        // when the new count has passed the old one.
        #expect(ledger.emit(Bytes(received: 150, sent: 0), now: 2) == Bytes(received: 170, sent: 0))
        #expect(ledger.emit(Bytes(received: 160, sent: 0), now: 3) == Bytes(received: 10, sent: 0))
    }

    @Test func anEventIsDueAfterTheIntervalOrAtTheEnd() {
        var ledger = ProgressLedger()
        _ = ledger.emit(Bytes(received: 1, sent: 0), now: 1_000)
        #expect(!ledger.eventDue(now: 1_050, interval: 100, final: false))
        #expect(ledger.eventDue(now: 1_050, interval: 100, final: true))
        #expect(ledger.eventDue(now: 1_100, interval: 100, final: false))
    }
}
