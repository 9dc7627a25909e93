import Foundation
@testable import TransferModel

/// A fixed instant that is a whole number of milliseconds, so exported times are exact.
let t0 = Date(timeIntervalSince1970: 1_700_000_000.0)

/// `t0` + µs.
func at(_ micros: Int64) -> Date { t0.addingTimeInterval(Double(micros) / 1_000_000) }

/// µs from `t0`, rounded (Date arithmetic is Double; tests compare whole µs).
func us(_ d: Date?) -> Int64? { d.map { Int64(($0.timeIntervalSince(t0) * 1_000_000).rounded()) } }

/// Rounds to µs for comparing millisecond durations.
func r3(_ v: Double?) -> Double? { v.map { ($0 * 1000).rounded() / 1000 } }

/// Deterministic SplitMix64, for property tests.
struct SeededRNG: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A completed fresh-connection HTTPS GET with every phase present.
func fullTransaction(url: String = "https://example.test/file?x=1", start: Int64 = 0) -> TransactionMetrics {
    TransactionMetrics(
        method: "GET", url: url,
        requestHeaders: [HTTPHeader("Host", "example.test"), HTTPHeader("Authorization", "Bearer SECRET-TOKEN-1")],
        statusCode: 200,
        responseHeaders: [HTTPHeader("Content-Type", "text/plain"), HTTPHeader("Set-Cookie", "sid=SECRET-COOKIE-2")],
        fetchStartDate: at(start), queueEndDate: at(start + 1000),
        domainLookupStartDate: at(start + 1000), domainLookupEndDate: at(start + 2000),
        connectStartDate: at(start + 2000), connectEndDate: at(start + 10_000),
        secureConnectionStartDate: at(start + 3000), secureConnectionEndDate: at(start + 10_000),
        requestStartDate: at(start + 10_500), requestEndDate: at(start + 11_000),
        responseStartDate: at(start + 21_000), responseEndDate: at(start + 31_000),
        networkProtocolName: "http/1.1", isReusedConnection: false, localAddress: "127.0.0.1",
        localPort: 50_123, remoteAddress: "127.0.0.1", remotePort: 8443, tlsProtocolVersion: "TLSv1.3",
        tlsCipherSuite: "TLS_AES_256_GCM_SHA384", countOfRequestHeaderBytesSent: 120,
        countOfRequestBodyBytesSent: 0, countOfResponseHeaderBytesReceived: 200,
        countOfResponseBodyBytesReceived: 1000, currentPhase: .done)
}

/// A reused-connection plain-HTTP GET: no DNS, connect or TLS.
func reusedTransaction(url: String = "http://example.test/next", start: Int64 = 40_000) -> TransactionMetrics {
    TransactionMetrics(
        method: "GET", url: url, statusCode: 204, fetchStartDate: at(start), queueEndDate: at(start),
        requestStartDate: at(start + 100), requestEndDate: at(start + 200),
        responseStartDate: at(start + 1200), responseEndDate: at(start + 1300),
        networkProtocolName: "h2", isReusedConnection: true, localPort: 50_124,
        remoteAddress: "::1", remotePort: 8080, currentPhase: .done)
}

func snapshot(session: Int = 1, name: String = "default", task: Int, kind: TaskKind = .data,
              state: TaskState = .completed, url: String = "https://example.test/file",
              transactions: [TransactionMetrics], error: TransferError? = nil,
              resumeOffset: Int64? = nil, end: Int64 = 50_000) -> TaskSnapshot {
    TaskSnapshot(sessionID: session, sessionName: name, taskIdentifier: task, kind: kind, state: state,
                 originalURL: url, statusCode: transactions.last?.statusCode,
                 metrics: TaskMetrics(taskIntervalStart: t0, taskIntervalEnd: at(end),
                                      redirectCount: max(0, transactions.count - 1),
                                      transactionMetrics: transactions),
                 error: error, resumeOffset: resumeOffset)
}
