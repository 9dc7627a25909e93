import Foundation
import TestSupport
import Testing
@testable import TransferModel

/// The phase a failed hop ended in is named, and it lasts until the hop ended, the same in the
/// durations, the CSV and HAR: a failed TLS handshake has its TLS time, a refused connect its
/// connect time, a lookup that found nothing its DNS time.
@Suite struct FailedPhaseTests {
    static func failedHop(_ facts: CurlTimingFacts, _ error: String = "failed") -> TransactionMetrics {
        var m = TransactionMetrics(method: "GET", url: facts.isTLS ? "https://x.test/" : "http://x.test/")
        m.apply(MetricsTranslation.phaseDates(facts))
        m.currentPhase = .done
        m.errorDescription = error
        return m
    }

    static let tlsFailed = failedHop(translationCases[4].facts, "TLS handshake failed")  // ends at 5 s
    static let refused = failedHop(CurlTimingFacts(namelookupMicros: 24, totalMicros: 300, numConnects: 0, isTLS: false,
                                                   fetchStart: t0, doneAt: at(300)))
    static let unresolved = failedHop(CurlTimingFacts(totalMicros: 2_000, numConnects: 0, isTLS: false,
                                                      fetchStart: t0, doneAt: at(2_000)))

    @Test func theFailedPhaseIsTheLastOneStartedAndNeverFinished() {
        #expect(Self.tlsFailed.failedPhase == .tls)
        #expect(Self.refused.failedPhase == .connect)
        #expect(Self.unresolved.failedPhase == .dns)
        #expect(fullTransaction().failedPhase == nil, "a hop that succeeded failed nowhere")
        var live = Self.refused
        live.currentPhase = .connect
        #expect(live.failedPhase == nil, "a running hop has not failed")
    }

    @Test func theFailedPhaseLastsUntilTheHopsEnd() {
        let tls = TransactionTimings(Self.tlsFailed, transactionEnd: at(5_000_000))
        #expect(tls.failedPhase == .tls && r3(tls.tlsMs) == 4999.976 && r3(tls.dnsMs) == 0.024)
        #expect(tls.connectMs == nil, "the TCP end of a failed handshake is unknown")
        let refused = TransactionTimings(Self.refused, transactionEnd: at(300))
        #expect(refused.failedPhase == .connect && r3(refused.connectMs) == 0.276 && refused.tlsMs == nil)
        let dns = TransactionTimings(Self.unresolved, transactionEnd: at(2_000))
        #expect(dns.failedPhase == .dns && r3(dns.dnsMs) == 2.0)
    }

    @Test func theCSVNamesThePhaseAndGivesItsTime() throws {
        let tasks = [snapshot(task: 1, transactions: [Self.tlsFailed], error: TransferError(.secureConnectionFailed, "TLS handshake failed"),
                              end: 5_000_000),
                     snapshot(task: 2, transactions: [Self.refused], error: TransferError(.cannotConnectToHost, "refused"), end: 300)]
        let rows = try CSVRead.records(TransactionCSV.csv(tasks))
        let h = rows[0]
        func cell(_ row: Int, _ name: String) -> String { rows[row][h.firstIndex(of: name)!] }
        #expect(cell(1, "failed_phase") == "tls" && cell(1, "tls_ms") == "4999.976" && cell(1, "connect_ms") == "")
        #expect(cell(2, "failed_phase") == "connect" && cell(2, "connect_ms") == "0.276" && cell(2, "tls_ms") == "")
        #expect(cell(1, "total_ms") == "5000.000")
    }

    @Test func harConnectHoldsTheFailedHandshakeAsTheScreenDoes() throws {
        let task = snapshot(task: 1, transactions: [Self.tlsFailed], error: TransferError(.secureConnectionFailed, "TLS handshake failed"),
                            end: 5_000_000)
        let json = try JSONSerialization.jsonObject(with: Data(HARExport.harText([task]).utf8)) as! [String: Any]
        let entry = ((json["log"] as! [String: Any])["entries"] as! [[String: Any]])[0]
        let timings = entry["timings"] as! [String: Double]
        #expect(timings["ssl"] == 4999.976 && timings["connect"] == 4999.976 && timings["dns"] == 0.024)
        #expect(entry["_failedPhase"] as? String == "tls")
    }
}
