import Testing
@testable import TransferModel

@Suite struct ResumeRequestPlanTests {
    @Test func strongETagGoesInIfRange() {
        let plan = ResumeRequestPlan(sampleResumeData())
        #expect(plan.offset == 400 && plan.ifRange == "\"v1-abc\"")
        #expect(plan.headers == [HTTPHeader("User-Agent", "transfertop/0.1"), HTTPHeader("Accept", "*/*"),
                                 HTTPHeader("Range", "bytes=400-"), HTTPHeader("If-Range", "\"v1-abc\"")])
    }

    @Test(arguments: [
        ("\"a\"", "Wed, 21 Oct 2015 07:28:00 GMT", "\"a\""),
        ("W/\"a\"", "Wed, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:28:00 GMT"),
        (nil, "Wed, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:28:00 GMT"),
        ("W/\"a\"", nil, nil),
        ("  \"a\" ", nil, "\"a\""),
        // A validator that would break the header line is never sent back.
        ("\"e1\rX-Inj: 1\"", "Wed, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:28:00 GMT"),
        ("\"e1\"\r\nX-Inj: 1", nil, nil),
        (nil, "Wed, 21 Oct 2015\n07:28:00 GMT", nil),
    ] as [(String?, String?, String?)])
    func ifRangeValidator(_ etag: String?, _ lastModified: String?, _ expected: String?) {
        #expect(ResumeRequestPlan.ifRangeValidator(entityTag: etag, lastModified: lastModified) == expected)
    }

    @Test func neverSendsAcceptEncodingSecretsOrConditionals() {
        var r = sampleResumeData()
        r.requestHeaders += [HTTPHeader("accept-encoding", "br"), HTTPHeader("If-None-Match", "\"x\""), HTTPHeader("Range", "bytes=0-1")]
        let names = ResumeRequestPlan(r).headers.map { $0.name.lowercased() }
        #expect(!names.contains("accept-encoding") && !names.contains("authorization") && !names.contains("if-none-match"))
        #expect(names.filter { $0 == "range" }.count == 1)
    }
}

struct DecisionCase: CustomTestStringConvertible, Sendable {
    var name: String
    var stored: ResumeData
    var status: Int
    var headers: [HTTPHeader]
    var expected: ResumeResponseDecision
    var testDescription: String { name }
}

private let etag = HTTPHeader("ETag", "\"v1-abc\"")
private let stored = sampleResumeData()  // offset 400, total 1000, ETag "v1-abc"
private let unknownTotal = sampleResumeData(total: -1)
private let lmOnly = sampleResumeData(etag: nil)

let decisionCases: [DecisionCase] = [
    DecisionCase(name: "206 matching", stored: stored, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-999/1000"), etag], expected: .continueAt(offset: 400, expectedTotal: 1000)),
    DecisionCase(name: "206 unknown stored total takes the server's", stored: unknownTotal, status: 206,
                 headers: [HTTPHeader("content-range", "bytes 400-999/1000"), etag], expected: .continueAt(offset: 400, expectedTotal: 1000)),
    DecisionCase(name: "206 with total * keeps the stored total", stored: stored, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-999/*"), etag], expected: .continueAt(offset: 400, expectedTotal: 1000)),
    DecisionCase(name: "206 Last-Modified only, unchanged", stored: lmOnly, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-999/1000"), HTTPHeader("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")],
                 expected: .continueAt(offset: 400, expectedTotal: 1000)),
    DecisionCase(name: "200: range ignored or If-Range failed", stored: stored, status: 200, headers: [etag],
                 expected: .restartFromZero(.rangeIgnored)),
    DecisionCase(name: "206 from 0: never splice", stored: stored, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 0-999/1000"), etag], expected: .restartFromZero(.wrongStart(expected: 400, actual: 0))),
    DecisionCase(name: "206 total changed", stored: stored, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-1999/2000"), etag], expected: .restartFromZero(.totalChanged(expected: 1000, actual: 2000))),
    DecisionCase(name: "206 ETag changed", stored: stored, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-999/1000"), HTTPHeader("ETag", "\"v2\"")],
                 expected: .restartFromZero(.validatorChanged("ETag \"v1-abc\" became \"v2\""))),
    DecisionCase(name: "206 without the stored ETag", stored: stored, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-999/1000")],
                 expected: .restartFromZero(.validatorChanged("the response has no ETag; stored \"v1-abc\""))),
    DecisionCase(name: "206 Last-Modified changed", stored: lmOnly, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-999/1000"), HTTPHeader("Last-Modified", "Thu, 22 Oct 2015 07:28:00 GMT")],
                 expected: .restartFromZero(.validatorChanged("Last-Modified Wed, 21 Oct 2015 07:28:00 GMT became Thu, 22 Oct 2015 07:28:00 GMT"))),
    DecisionCase(name: "206 without Content-Range (multipart)", stored: stored, status: 206, headers: [etag],
                 expected: .restartFromZero(.contentRangeMissing)),
    DecisionCase(name: "206 malformed Content-Range", stored: stored, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-300/1000"), etag], expected: .restartFromZero(.contentRangeMalformed("bytes 400-300/1000"))),
    DecisionCase(name: "206 gzip-encoded", stored: stored, status: 206,
                 headers: [HTTPHeader("Content-Range", "bytes 400-999/1000"), etag, HTTPHeader("Content-Encoding", "gzip")],
                 expected: .restartFromZero(.contentEncoded("gzip"))),
    DecisionCase(name: "416 */offset, same ETag: already complete", stored: sampleResumeData(received: 1000), status: 416,
                 headers: [HTTPHeader("Content-Range", "bytes */1000"), etag], expected: .alreadyComplete(total: 1000)),
    DecisionCase(name: "416 */offset, stored total matches, no validator in 416", stored: sampleResumeData(received: 1000), status: 416,
                 headers: [HTTPHeader("Content-Range", "bytes */1000")], expected: .alreadyComplete(total: 1000)),
    DecisionCase(name: "416 beyond the end: local file too long", stored: sampleResumeData(received: 1000, total: -1), status: 416,
                 headers: [HTTPHeader("Content-Range", "bytes */800"), etag], expected: .restartFromZero(.notSatisfiable("416 total 800 is not the offset 1000"))),
    DecisionCase(name: "416 with a changed ETag", stored: sampleResumeData(received: 1000), status: 416,
                 headers: [HTTPHeader("Content-Range", "bytes */1000"), HTTPHeader("ETag", "\"v2\"")],
                 expected: .restartFromZero(.validatorChanged("ETag \"v1-abc\" became \"v2\""))),
    DecisionCase(name: "416 unknown total and no validator: unproven", stored: sampleResumeData(received: 1000, total: -1), status: 416,
                 headers: [HTTPHeader("Content-Range", "bytes */1000")],
                 expected: .restartFromZero(.notSatisfiable("416 does not prove the file is complete and unchanged"))),
    DecisionCase(name: "416 without Content-Range", stored: stored, status: 416, headers: [],
                 expected: .restartFromZero(.notSatisfiable("416 without Content-Range: bytes */total"))),
    DecisionCase(name: "404", stored: stored, status: 404, headers: [],
                 expected: .fail(status: 404, reason: "HTTP 404 is not an answer to a range request")),
    DecisionCase(name: "503", stored: stored, status: 503, headers: [],
                 expected: .fail(status: 503, reason: "HTTP 503 is not an answer to a range request")),
]

@Suite struct ResumeResponseDecisionTests {
    @Test(arguments: decisionCases)
    func decides(_ c: DecisionCase) {
        #expect(ResumeResponseDecision.decide(c.stored, status: c.status, headers: c.headers) == c.expected)
    }

    @Test func onlyA200BodyCanBeWrittenFromZeroInPlace() {
        #expect(ResumeResponseDecision.RestartReason.rangeIgnored.bodyIsFullRepresentation)
        #expect(!ResumeResponseDecision.RestartReason.wrongStart(expected: 1, actual: 0).bodyIsFullRepresentation)
    }

    @Test(arguments: [
        ("bytes 0-0/1", ContentRange.range(first: 0, last: 0, total: 1)),
        ("BYTES 5-9/*", .range(first: 5, last: 9, total: nil)),
        ("  bytes 400-999/1000 ", .range(first: 400, last: 999, total: 1000)),
        ("bytes */1000", .unsatisfied(total: 1000)),
        ("bytes 5-9/9", nil), ("bytes 9-5/100", nil), ("bytes -5-9/100", nil), ("items 0-1/2", nil),
        ("bytes */*", nil), ("bytes 1-2", nil), ("bytes 99999999999999999999-1/2", nil), ("", nil), ("bytes ", nil),
        ("bytes ١-٢/٣", nil),
    ] as [(String, ContentRange?)])
    func parsesContentRange(_ text: String, _ expected: ContentRange?) {
        #expect(ContentRange(text) == expected)
    }
}

@Suite struct ResumabilityTests {
    static let good = [HTTPHeader("Accept-Ranges", "bytes"), HTTPHeader("ETag", "\"a\"")]

    @Test(arguments: [
        ("GET 200 with ranges and ETag", "GET", 200, good, false, 10, Resumability.resumable),
        ("before the first body byte", "GET", 200, good, false, 0, .resumable),
        ("Last-Modified only", "GET", 200, [HTTPHeader("Accept-Ranges", "none, bytes"), HTTPHeader("Last-Modified", "x")], false, 1, .resumable),
        ("206 observed without Accept-Ranges", "GET", 206, [HTTPHeader("ETag", "\"a\"")], true, 1, .resumable),
        ("POST", "POST", 200, good, false, 10, .notResumable(.notGET("POST"))),
        ("no response yet", "GET", nil, [], false, 0, .notResumable(.noResponseYet)),
        ("404", "GET", 404, good, false, 10, .notResumable(.status(404))),
        ("no validator", "GET", 200, [HTTPHeader("Accept-Ranges", "bytes")], false, 10, .notResumable(.noValidator)),
        ("only a validator that breaks a line", "GET", 200, [HTTPHeader("Accept-Ranges", "bytes"), HTTPHeader("ETag", "\"a\rX: 1\"")],
         false, 10, .notResumable(.noValidator)),
        ("a broken ETag beside a good date", "GET", 200, [HTTPHeader("Accept-Ranges", "bytes"), HTTPHeader("ETag", "\"a\nX: 1\""),
                                                           HTTPHeader("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")], false, 10, .resumable),
        ("Accept-Ranges: none", "GET", 200, [HTTPHeader("Accept-Ranges", "none"), HTTPHeader("ETag", "\"a\"")], false, 10, .notResumable(.rangesNotSupported)),
        ("no Accept-Ranges", "GET", 200, [HTTPHeader("ETag", "\"a\"")], false, 10, .notResumable(.rangesNotSupported)),
        ("gzip", "GET", 200, good + [HTTPHeader("Content-Encoding", "gzip")], false, 10, .notResumable(.contentEncoded("gzip"))),
        ("identity encoding is fine", "GET", 200, good + [HTTPHeader("Content-Encoding", "identity")], false, 10, .resumable),
        ("partial file gone", "GET", 200, good, false, nil, .notResumable(.partialFileMissing)),
    ] as [(String, String, Int?, [HTTPHeader], Bool, Int64?, Resumability)])
    func evaluates(_ name: String, _ method: String, _ status: Int?, _ headers: [HTTPHeader], _ saw206: Bool,
                   _ length: Int64?, _ expected: Resumability) {
        let verdict = Resumability.evaluate(method: method, statusCode: status, responseHeaders: headers,
                                            observedPartialContent: saw206, partialFileLength: length)
        #expect(verdict == expected, "\(name)")
        #expect(!verdict.explanation.isEmpty)
    }

    @Test func minimumLengthIsConfigurable() {
        let v = Resumability.evaluate(method: "GET", statusCode: 200, responseHeaders: Self.good,
                                      observedPartialContent: false, partialFileLength: 0, minimumPartialBytes: 1)
        #expect(v == .notResumable(.partialFileTooShort(length: 0, minimum: 1)))
    }

    @Test(arguments: [
        ("bytes", true), ("Bytes", true), ("BYTES", true), ("none, bytes", true), (" bytes ", true), ("bytes,none", true),
        ("none", false), ("", false), ("bytesx", false), ("byte", false), ("none,\tbytes", true),
    ] as [(String, Bool)])
    func acceptRangesListsBytes(_ value: String, _ expected: Bool) {
        #expect(Resumability.acceptsByteRanges(value) == expected, "\(value)")
    }

    @Test func getInAnyCaseResumes() {
        #expect(Resumability.evaluate(method: "get", statusCode: 200, responseHeaders: Self.good,
                                      observedPartialContent: false, partialFileLength: 1) == .resumable)
    }
}
