import Foundation
import Testing
@testable import TransferModel

/// Phase dates as µs offsets from t0, nil where absent: one line per expectation.
struct PhaseOffsets: Equatable, CustomStringConvertible {
    var queueEnd, dnsStart, dnsEnd, connectStart, connectEnd, tlsStart, tlsEnd: Int64?
    var requestStart, requestEnd, responseStart, responseEnd: Int64?
    var reused: Bool

    init(queueEnd: Int64? = nil, dnsStart: Int64? = nil, dnsEnd: Int64? = nil, connectStart: Int64? = nil,
         connectEnd: Int64? = nil, tlsStart: Int64? = nil, tlsEnd: Int64? = nil, requestStart: Int64? = nil,
         requestEnd: Int64? = nil, responseStart: Int64? = nil, responseEnd: Int64? = nil, reused: Bool = false) {
        (self.queueEnd, self.dnsStart, self.dnsEnd, self.connectStart, self.connectEnd) =
            (queueEnd, dnsStart, dnsEnd, connectStart, connectEnd)
        (self.tlsStart, self.tlsEnd, self.requestStart, self.requestEnd) = (tlsStart, tlsEnd, requestStart, requestEnd)
        (self.responseStart, self.responseEnd, self.reused) = (responseStart, responseEnd, reused)
    }

    init(_ d: TransactionPhaseDates) {
        self.init(queueEnd: us(d.queueEnd), dnsStart: us(d.domainLookupStart), dnsEnd: us(d.domainLookupEnd),
                  connectStart: us(d.connectStart), connectEnd: us(d.connectEnd),
                  tlsStart: us(d.secureConnectionStart), tlsEnd: us(d.secureConnectionEnd),
                  requestStart: us(d.requestStart), requestEnd: us(d.requestEnd),
                  responseStart: us(d.responseStart), responseEnd: us(d.responseEnd),
                  reused: d.isReusedConnection)
    }

    var description: String {
        let all: [(String, Int64?)] = [("queueEnd", queueEnd), ("dns", dnsStart), ("dnsEnd", dnsEnd),
            ("connect", connectStart), ("connectEnd", connectEnd), ("tls", tlsStart), ("tlsEnd", tlsEnd),
            ("req", requestStart), ("reqEnd", requestEnd), ("resp", responseStart), ("respEnd", responseEnd)]
        return all.map { "\($0.0)=\($0.1.map(String.init) ?? "nil")" }.joined(separator: " ") + " reused=\(reused)"
    }
}

struct TranslationCase: CustomTestStringConvertible, Sendable {
    var name: String
    var facts: CurlTimingFacts
    var expected: PhaseOffsets
    var anchor: MetricsTranslation.Anchor
    var testDescription: String { name }
}

// Timer values are ones measured with libcurl 7.88.1 on loopback.
let translationCases: [TranslationCase] = [
    TranslationCase(
        name: "first request, plain http (A)",
        facts: CurlTimingFacts(namelookupMicros: 39, connectMicros: 830, pretransferMicros: 884,
                               starttransferMicros: 2921, totalMicros: 3046, numConnects: 1, isTLS: false,
                               fetchStart: t0, prereqAt: at(850), firstHeaderAt: at(2921),
                               lastByteAt: at(3000), doneAt: at(3046)),
        expected: PhaseOffsets(queueEnd: 0, dnsStart: 0, dnsEnd: 39, connectStart: 39, connectEnd: 830,
                               requestStart: 850, requestEnd: 884, responseStart: 2921, responseEnd: 3000),
        anchor: .firstHeader),
    TranslationCase(
        name: "reused connection (B): DNS, connect and TLS absent although NAMELOOKUP is 21",
        facts: CurlTimingFacts(namelookupMicros: 21, pretransferMicros: 52, starttransferMicros: 222,
                               totalMicros: 46792, numConnects: 0, isTLS: false, fetchStart: t0,
                               prereqAt: at(30), firstHeaderAt: at(222), lastByteAt: at(46700),
                               doneAt: at(46792)),
        expected: PhaseOffsets(queueEnd: 0, requestStart: 30, requestEnd: 52, responseStart: 222,
                               responseEnd: 46700, reused: true),
        anchor: .firstHeader),
    TranslationCase(
        name: "first https request (F), no PREREQ timestamp",
        facts: CurlTimingFacts(namelookupMicros: 24, connectMicros: 667, appconnectMicros: 4718,
                               pretransferMicros: 4769, starttransferMicros: 8039, totalMicros: 8128,
                               numConnects: 1, isTLS: true, fetchStart: t0, firstHeaderAt: at(8039),
                               doneAt: at(8128)),
        expected: PhaseOffsets(queueEnd: 0, dnsStart: 0, dnsEnd: 24, connectStart: 24, connectEnd: 4718,
                               tlsStart: 667, tlsEnd: 4718, requestStart: 4718, requestEnd: 4769,
                               responseStart: 8039, responseEnd: 8128),
        anchor: .firstHeader),
    TranslationCase(
        name: "reused https (G): TLS absent",
        facts: CurlTimingFacts(namelookupMicros: 21, pretransferMicros: 174, starttransferMicros: 179,
                               totalMicros: 43221, numConnects: 0, isTLS: true, fetchStart: t0,
                               firstHeaderAt: at(179), doneAt: at(43221)),
        expected: PhaseOffsets(queueEnd: 0, requestStart: 21, requestEnd: 174, responseStart: 179,
                               responseEnd: 43221, reused: true),
        anchor: .firstHeader),
    TranslationCase(
        name: "failed TLS handshake: TCP counted, CONNECT 0 (7.88), TLS start only",
        facts: CurlTimingFacts(namelookupMicros: 24, totalMicros: 5_000_000, numConnects: 1, isTLS: true,
                               fetchStart: t0, doneAt: at(5_000_000)),
        expected: PhaseOffsets(dnsStart: 0, dnsEnd: 24, connectStart: 24, tlsStart: 24),
        anchor: .doneMinusTotal),
    TranslationCase(
        name: "failed TLS with a CONNECT value (curl ≥ 8.0): TLS starts at TCP end",
        facts: CurlTimingFacts(namelookupMicros: 24, connectMicros: 700, totalMicros: 9000, numConnects: 1,
                               isTLS: true, fetchStart: t0, doneAt: at(9000)),
        expected: PhaseOffsets(dnsStart: 0, dnsEnd: 24, connectStart: 24, tlsStart: 700),
        anchor: .doneMinusTotal),
    TranslationCase(
        name: "FTPS: CONNECT stamped again by the data connection after APPCONNECT: TCP + TLS as connect, TLS unknown",
        facts: CurlTimingFacts(namelookupMicros: 30, connectMicros: 50_700, appconnectMicros: 47_700,
                               pretransferMicros: 52_000, starttransferMicros: 60_000, totalMicros: 61_000,
                               numConnects: 1, isTLS: true, fetchStart: t0, doneAt: at(61_000), hasDataConnection: true),
        expected: PhaseOffsets(dnsStart: 0, dnsEnd: 30, connectStart: 30, connectEnd: 47_700, requestStart: 50_700,
                               requestEnd: 52_000, responseStart: 60_000, responseEnd: 61_000),
        anchor: .doneMinusTotal),
    TranslationCase(
        name: "FTPS: both stamps of the data connection, CONNECT 61 us before APPCONNECT: no 0.06 ms TLS",
        facts: CurlTimingFacts(namelookupMicros: 30, connectMicros: 50_700, appconnectMicros: 50_761,
                               pretransferMicros: 52_000, starttransferMicros: 60_000, totalMicros: 61_000,
                               numConnects: 1, isTLS: true, fetchStart: t0, doneAt: at(61_000), hasDataConnection: true),
        expected: PhaseOffsets(dnsStart: 0, dnsEnd: 30, connectStart: 30, connectEnd: 50_700, requestStart: 50_761,
                               requestEnd: 52_000, responseStart: 60_000, responseEnd: 61_000),
        anchor: .doneMinusTotal),
    TranslationCase(
        name: "queued behind the per-host limit (Q2): 743 ms only in TOTAL",
        facts: CurlTimingFacts(namelookupMicros: 33, pretransferMicros: 80, starttransferMicros: 700_672,
                               totalMicros: 1_443_790, numConnects: 0, isTLS: false, fetchStart: t0,
                               firstHeaderAt: at(1_443_672), doneAt: at(1_443_790)),
        expected: PhaseOffsets(queueEnd: 743_000, requestStart: 743_033, requestEnd: 743_080,
                               responseStart: 1_443_672, responseEnd: 1_443_790, reused: true),
        anchor: .firstHeader),
    TranslationCase(
        name: "queued, then a new connection",
        facts: CurlTimingFacts(namelookupMicros: 40, connectMicros: 500, pretransferMicros: 550,
                               starttransferMicros: 1500, totalMicros: 300_000, numConnects: 1, isTLS: false,
                               fetchStart: t0, prereqAt: at(200_520), firstHeaderAt: at(201_500),
                               doneAt: at(202_000)),
        expected: PhaseOffsets(queueEnd: 200_000, dnsStart: 200_000, dnsEnd: 200_040, connectStart: 200_040,
                               connectEnd: 200_500, requestStart: 200_520, requestEnd: 200_550,
                               responseStart: 201_500, responseEnd: 202_000),
        anchor: .firstHeader),
    TranslationCase(
        name: "connection refused: DNS done, connect never ends, not 'reused'",
        facts: CurlTimingFacts(namelookupMicros: 40, totalMicros: 1200, numConnects: 0, isTLS: false,
                               fetchStart: t0, doneAt: at(1200)),
        expected: PhaseOffsets(dnsStart: 0, dnsEnd: 40, connectStart: 40),
        anchor: .doneMinusTotal),
    TranslationCase(
        name: "cancelled while connecting after 500 ms in the queue: anchored where connecting began",
        facts: CurlTimingFacts(namelookupMicros: 30, totalMicros: 500_300, numConnects: 0, isTLS: true,
                               fetchStart: t0, connectingAt: at(500_000), doneAt: at(500_300)),
        expected: PhaseOffsets(queueEnd: 500_000, dnsStart: 500_000, dnsEnd: 500_030, connectStart: 500_030),
        anchor: .connecting),
    TranslationCase(
        name: "host not found: only DNS start",
        facts: CurlTimingFacts(totalMicros: 3000, numConnects: 0, isTLS: true, fetchStart: t0, doneAt: at(3000)),
        expected: PhaseOffsets(dnsStart: 0),
        anchor: .doneMinusTotal),
    TranslationCase(
        name: "failure after the request, before any response (got nothing), anchored on PREREQ",
        facts: CurlTimingFacts(namelookupMicros: 20, pretransferMicros: 60, totalMicros: 5000, numConnects: 0,
                               isTLS: false, fetchStart: t0, prereqAt: at(540), doneAt: at(5000)),
        expected: PhaseOffsets(queueEnd: 520, requestStart: 540, requestEnd: 580, reused: true),
        anchor: .prereq),
    TranslationCase(
        name: "clock skew: S before fetch start is clamped (queue 0, dates monotonic)",
        facts: CurlTimingFacts(namelookupMicros: 10, connectMicros: 60, pretransferMicros: 80,
                               starttransferMicros: 150, totalMicros: 160, numConnects: 1, isTLS: false,
                               fetchStart: t0, firstHeaderAt: at(100), doneAt: at(160)),
        expected: PhaseOffsets(queueEnd: 0, dnsStart: 0, dnsEnd: 10, connectStart: 10, connectEnd: 60,
                               requestStart: 60, requestEnd: 80, responseStart: 100, responseEnd: 160),
        anchor: .firstHeader),
    TranslationCase(
        name: "upload: request ends at the last body byte, after PRETRANSFER",
        facts: CurlTimingFacts(namelookupMicros: 10, connectMicros: 60, pretransferMicros: 80,
                               starttransferMicros: 90_000, totalMicros: 91_000, numConnects: 1, isTLS: false,
                               fetchStart: t0, prereqAt: at(70), firstHeaderAt: at(90_000),
                               lastBodyByteSentAt: at(85_000), doneAt: at(91_000)),
        expected: PhaseOffsets(queueEnd: 0, dnsStart: 0, dnsEnd: 10, connectStart: 10, connectEnd: 60,
                               requestStart: 70, requestEnd: 85_000, responseStart: 90_000, responseEnd: 91_000),
        anchor: .firstHeader),
]

@Suite struct MetricsTranslationTests {
    @Test(arguments: translationCases)
    func translates(_ c: TranslationCase) {
        let dates = MetricsTranslation.phaseDates(c.facts)
        #expect(PhaseOffsets(dates) == c.expected)
        #expect(dates.anchor == c.anchor)
        #expect(dates.fetchStart == c.facts.fetchStart)
    }

    @Test(arguments: translationCases)
    func datesAreMonotonicInPhaseOrder(_ c: TranslationCase) {
        let d = MetricsTranslation.phaseDates(c.facts)
        let ordered = [d.fetchStart, d.queueEnd, d.domainLookupStart, d.domainLookupEnd, d.connectStart,
                       d.secureConnectionStart, d.secureConnectionEnd, d.connectEnd, d.requestStart,
                       d.responseStart, d.responseEnd].compactMap { $0 }
        #expect(ordered == ordered.sorted())
    }

    @Test func applyCopiesDatesIntoTransactionMetrics() {
        var m = TransactionMetrics(method: "GET", url: "http://a.test/")
        let facts = translationCases[1].facts
        m.apply(MetricsTranslation.phaseDates(facts))
        #expect(m.isReusedConnection)
        #expect(m.domainLookupStartDate == nil && m.connectStartDate == nil && m.secureConnectionStartDate == nil)
        #expect(us(m.requestStartDate) == 30 && us(m.responseEndDate) == 46700)
    }
}
