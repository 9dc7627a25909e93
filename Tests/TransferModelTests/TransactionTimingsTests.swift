import Foundation
import Testing
@testable import TransferModel

@Suite struct TransactionTimingsTests {
    @Test func fullTLSTransaction() {
        let d = TransactionTimings(fullTransaction())
        #expect(r3(d.queuedMs) == 1.0)
        #expect(r3(d.dnsMs) == 1.0)
        #expect(r3(d.connectMs) == 1.0)  // TCP only: connect start → TLS start
        #expect(r3(d.tlsMs) == 7.0)
        #expect(r3(d.requestMs) == 0.5)
        #expect(r3(d.waitMs) == 10.0)
        #expect(r3(d.receiveMs) == 10.0)
        #expect(r3(d.ttfbMs) == 20.0)  // from the queue end (1 ms queued), as curl's starttransfer
        #expect(r3(d.totalMs) == 31.0)
        #expect(r3(TransactionTimings.connectIncludingTLSMs(fullTransaction())) == 8.0)
    }

    @Test func ttfbCountsFromTheFetchStartWhenTheQueueEndIsUnknown() {
        var m = fullTransaction()
        m.queueEndDate = nil
        #expect(r3(TransactionTimings(m).ttfbMs) == 21.0)
    }

    @Test func reusedConnectionHasAbsentNotZeroPhases() {
        let d = TransactionTimings(reusedTransaction())
        #expect(d.dnsMs == nil && d.connectMs == nil && d.tlsMs == nil)
        #expect(d.queuedMs == 0)  // measured and zero: present
        #expect(r3(d.ttfbMs) == 1.2 && r3(d.totalMs) == 1.3)
    }

    @Test func plainHTTPConnectIsWholeConnect() {
        var m = fullTransaction(url: "http://example.test/")
        m.secureConnectionStartDate = nil
        m.secureConnectionEndDate = nil
        let d = TransactionTimings(m)
        #expect(d.tlsMs == nil)
        #expect(r3(d.connectMs) == 8.0)
    }

    @Test func failedTLSHasNoConnectOrTLSDurationAndTotalFromTheEnd() {
        let dates = MetricsTranslation.phaseDates(translationCases[4].facts)
        var m = TransactionMetrics(method: "GET", url: "https://x.test/")
        m.apply(dates)
        let d = TransactionTimings(m, transactionEnd: at(5_000_000))
        #expect(r3(d.dnsMs) == 0.024)
        #expect(d.connectMs == nil && d.tlsMs == nil && d.queuedMs == nil)
        #expect(d.requestMs == nil && d.waitMs == nil && d.receiveMs == nil && d.ttfbMs == nil)
        #expect(r3(d.totalMs) == 5000.0)
    }

    @Test func transactionEndFallsBackToNextHopThenTaskEnd() {
        var first = fullTransaction()
        first.responseEndDate = nil
        let second = reusedTransaction(start: 40_000)
        var last = reusedTransaction(start: 45_000)
        last.responseEndDate = nil
        let metrics = TaskMetrics(taskIntervalStart: t0, taskIntervalEnd: at(49_000), transactionMetrics: [first, second, last])
        #expect(us(metrics.transactionEnd(at: 0)) == 40_000)
        #expect(us(metrics.transactionEnd(at: 1)) == 41_300)
        #expect(us(metrics.transactionEnd(at: 2)) == 49_000)
        #expect(metrics.timings.map { r3($0.totalMs) } == [40.0, 1.3, 4.0])
    }
}
