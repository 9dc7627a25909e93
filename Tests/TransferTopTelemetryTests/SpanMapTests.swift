import Foundation
import Testing
import TransferModel
@testable import TransferTopTelemetry

/// `TaskTrace.spans(for:)`: a task's metrics as span descriptions, without a network.
@Suite struct SpanMapTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ ms: Double) -> Date { t0.addingTimeInterval(ms / 1000) }

    /// A redirect (302 over a new connection, credentials in the URL) then a 200 over TLS.
    static func redirected() -> TaskSnapshot {
        var first = TransactionMetrics(method: "GET", url: "http://alice:s3cret@example.test:8080/start?token=abc&x=1",
                                       statusCode: 302, fetchStartDate: at(0), queueEndDate: at(1),
                                       domainLookupStartDate: at(1), domainLookupEndDate: at(3),
                                       connectStartDate: at(3), connectEndDate: at(5),
                                       requestStartDate: at(5), requestEndDate: at(6),
                                       responseStartDate: at(10), responseEndDate: at(11),
                                       networkProtocolName: "http/1.1", remoteAddress: "127.0.0.1", remotePort: 8080,
                                       currentPhase: .done)
        first.requestHeaders = [HTTPHeader("Authorization", "Basic YWxpY2U6czNjcmV0")]
        let second = TransactionMetrics(method: "GET", url: "https://example.test/final",
                                        statusCode: 200, fetchStartDate: at(11), queueEndDate: at(11),
                                        domainLookupStartDate: at(11), domainLookupEndDate: at(12),
                                        connectStartDate: at(12), connectEndDate: at(20),
                                        secureConnectionStartDate: at(13), secureConnectionEndDate: at(20),
                                        requestStartDate: at(20), requestEndDate: at(21),
                                        responseStartDate: at(30), responseEndDate: at(45),
                                        networkProtocolName: "h2", remoteAddress: "127.0.0.1", remotePort: 443,
                                        tlsProtocolVersion: "TLSv1.3", tlsCipherSuite: "TLS_AES_256_GCM_SHA384",
                                        countOfResponseBodyBytesReceived: 1000, currentPhase: .done)
        let metrics = TaskMetrics(taskIntervalStart: at(0), taskIntervalEnd: at(46), redirectCount: 1,
                                  transactionMetrics: [first, second])
        return TaskSnapshot(sessionID: 1, sessionName: "default", taskIdentifier: 7, kind: .download, state: .completed,
                            originalURL: "http://alice:s3cret@example.test:8080/start?token=abc&x=1",
                            currentURL: "https://example.test/final", countOfBytesReceived: 1000, statusCode: 200,
                            networkProtocolName: "h2", metrics: metrics)
    }

    @Test func aRootSpanPerTaskAHopSpanPerTransactionAndItsPhasesUnderIt() {
        let spans = TaskTrace.spans(for: Self.redirected())
        #expect(spans.map(\.name) == ["download", "GET", "queued", "dns", "connect", "request", "wait", "receive",
                                      "GET", "queued", "dns", "connect", "tls", "request", "wait", "receive"])
        #expect(spans[0].parent == nil && spans[0].kind == .internal)
        #expect(spans[1].parent == 0 && spans[8].parent == 0)
        #expect(spans[1].kind == .client && spans[8].kind == .client)
        #expect(spans[2...7].allSatisfy { $0.parent == 1 })
        #expect(spans[9...].allSatisfy { $0.parent == 8 })
        // The second hop got its slot at once: its `queued` is 0 long, as its CSV column says.
        #expect(spans[9].start == spans[9].end)
        #expect(spans[0].start == Self.at(0) && spans[0].end == Self.at(46))
        #expect(spans[1].start == Self.at(0) && spans[1].end == Self.at(11))
        #expect(spans[8].start == Self.at(11) && spans[8].end == Self.at(45))
    }

    @Test func phaseSpansLastWhatTheCSVColumnsSay() {
        let task = Self.redirected()
        let spans = TaskTrace.spans(for: task)
        let hopIndices = spans.indices.filter { spans[$0].kind == .client }
        for (hop, timings) in zip(hopIndices, task.metrics.timings) {
            let phases = Dictionary(uniqueKeysWithValues: spans.filter { $0.parent == hop }.map {
                ($0.name, $0.end.timeIntervalSince($0.start) * 1000)
            })
            let expected: [String: Double?] = ["queued": timings.queuedMs, "dns": timings.dnsMs, "connect": timings.connectMs,
                                               "tls": timings.tlsMs, "request": timings.requestMs,
                                               "wait": timings.waitMs, "receive": timings.receiveMs]
            for (name, ms) in expected {
                if let ms {
                    #expect(abs((phases[name] ?? -1) - ms) < 0.001, "\(name)")
                } else {
                    #expect(phases[name] == nil, "\(name)")
                }
            }
        }
    }

    @Test func hopAttributesFollowTheHTTPSemanticConventions() {
        let spans = TaskTrace.spans(for: Self.redirected())
        let first = spans[1].attributes, second = spans[8].attributes
        #expect(first["http.request.method"] == .string("GET"))
        #expect(first["url.full"] == .string("http://example.test:8080/start?token=REDACTED&x=1"))
        #expect(first["url.scheme"] == .string("http"))
        #expect(first["server.address"] == .string("example.test"))
        #expect(first["server.port"] == .int(8080))
        #expect(first["http.response.status_code"] == .int(302))
        #expect(first["network.protocol.version"] == .string("1.1"))
        #expect(first["http.request.resend_count"] == nil)
        #expect(first["error.type"] == nil)
        #expect(second["server.port"] == .int(443))
        #expect(second["network.protocol.version"] == .string("2"))
        #expect(second["http.request.resend_count"] == .int(1))
        #expect(second["tls.protocol.version"] == .string("1.3"))
        #expect(second["http.response.body.size"] == .int(1000))
        #expect(spans[0].attributes["transfertop.redirect_count"] == .int(1))
        #expect(spans[0].attributes["http.response.status_code"] == .int(200))
    }

    @Test func noCredentialAppearsInAnySpan() {
        for span in TaskTrace.spans(for: Self.redirected()) {
            let text = ([span.name, span.error ?? ""] + span.attributes.values.map(\.description)).joined(separator: " ")
            #expect(!text.contains("alice") && !text.contains("s3cret") && !text.contains("abc") && !text.contains("YWxp"))
        }
    }

    @Test func aRefusedConnectionFailsInConnectUntilTheTaskEnds() {
        let hop = TransactionMetrics(method: "GET", url: "http://127.0.0.1:9/x", fetchStartDate: Self.at(0),
                                     queueEndDate: Self.at(0), connectStartDate: Self.at(0),
                                     currentPhase: .done, errorDescription: "Connection refused")
        let task = TaskSnapshot(sessionID: 1, sessionName: "default", taskIdentifier: 1, kind: .data, state: .completed,
                                originalURL: "http://127.0.0.1:9/x",
                                metrics: TaskMetrics(taskIntervalStart: Self.at(0), taskIntervalEnd: Self.at(2),
                                                     transactionMetrics: [hop]),
                                error: TransferError(.cannotConnectToHost, "Could not connect to the server."))
        let spans = TaskTrace.spans(for: task)
        #expect(spans.map(\.name) == ["data", "GET", "queued", "connect"])
        #expect(spans[3].error != nil && spans[3].end == Self.at(2))
        #expect(spans[1].attributes["error.type"] == .string("cannotConnectToHost"))
        #expect(spans[0].attributes["error.type"] == .string("cannotConnectToHost"))
        #expect(spans[0].error?.contains("cannotConnectToHost") == true)
    }

    @Test func aTaskWithoutHopsIsOneSpan() {
        let task = TaskSnapshot(sessionID: 1, sessionName: "s", taskIdentifier: 2, kind: .download, state: .completed,
                                originalURL: "ftp://u:p@files.test/a", metrics: TaskMetrics(taskIntervalStart: Self.at(5)),
                                error: TransferError(.badURL, "bad"))
        let spans = TaskTrace.spans(for: task)
        #expect(spans.count == 1 && spans[0].start == Self.at(5) && spans[0].end == Self.at(5))
        #expect(spans[0].attributes["url.full"] == .string("ftp://files.test/a"))
        #expect(spans[0].attributes["server.port"] == .int(21))
    }

    @Test(arguments: [
        ("http://[::1]:8443/x", "::1", 8443),
        ("https://u@Host.Test/x", "host.test", nil),
        ("http://h:81?q=1", "h", 81),
    ] as [(String, String, Int?)])
    func urlParts(url: String, host: String, port: Int?) {
        #expect(URLParts(url) == URLParts(scheme: url.hasPrefix("https") ? "https" : "http", host: host, port: port))
    }

    @Test func anUnknownMethodIsOther() {
        #expect(TaskTrace.spanName("PROPFIND") == "HTTP")
        #expect(TaskTrace.method("PROPFIND") == ["http.request.method": .string("_OTHER"),
                                                 "http.request.method_original": .string("PROPFIND")])
    }

    @Test func theTracesURLIsTheCollectorsWithV1Traces() {
        #expect(TraceExporter.tracesURL("http://127.0.0.1:4318") == "http://127.0.0.1:4318/v1/traces")
        #expect(TraceExporter.tracesURL("http://c:4318/") == "http://c:4318/v1/traces")
        #expect(TraceExporter.tracesURL("http://c:4318/v1/traces") == "http://c:4318/v1/traces")
        #expect(TraceExporter.tracesURL("http://c:4318/otel?tenant=a") == "http://c:4318/otel/v1/traces?tenant=a")
        #expect(TraceExporter.tracesURL("http://c:4318?tenant=a") == "http://c:4318/v1/traces?tenant=a")
    }
}
