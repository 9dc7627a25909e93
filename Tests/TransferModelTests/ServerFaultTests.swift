import Testing
@testable import TransferModel

/// libcurl 7.88's code and error-buffer text (as measured against a raw-TCP server) to the
/// fault each names, and the code and sentence a task then fails with.
@Suite struct ServerFaultTests {
    static let headOpen = ServerFault.Observed(headComplete: false, informationalHeads: 0)
    static let bodyStarted = ServerFault.Observed(headComplete: true, informationalHeads: 0)

    @Test(arguments: [
        (1, "Unsupported HTTP version in response", headOpen, ServerFault.notHTTP1StatusLine),
        (1, "Unsupported HTTP version (3.5) in response", headOpen, .notHTTP1StatusLine),
        (1, "Unsupported response code in HTTP response", headOpen, .notHTTP1StatusLine),
        (1, "Received HTTP/0.9 when not allowed", headOpen, .http09),
        (8, "Invalid Content-Length: value", headOpen, .invalidContentLength),
        (8, "Header without colon", headOpen, .malformedHeaderLine),
        (8, "Nul byte in header", headOpen, .malformedHeaderLine),
        (27, "", headOpen, .headerLineTooLong),
        (56, "Too large response headers: 307212 > 307200", headOpen, .headTooLarge),
        (56, "Too large response headers: 307223 > 307200", .init(headComplete: false, informationalHeads: 3), .headTooLarge),
        (56, "Too large response headers: 307223 > 307200", .init(headComplete: false, informationalHeads: 11800),
         .informationalFlood(count: 11800)),
        (56, "Illegal or missing hexadecimal sequence in chunked-encoding", bodyStarted, .badChunkedEncoding),
        (56, "Malformed encoding found in chunked-encoding", bodyStarted, .badChunkedEncoding),
        (18, "transfer closed with 98 bytes remaining to read", bodyStarted, .bodyShorterThanDeclared),
        (18, "transfer closed with outstanding read data remaining", bodyStarted, .bodyShorterThanDeclared),
        (52, "Empty reply from server", headOpen, .emptyReply),
        (90, "SSL: public key does not match pinned public key", headOpen, .publicKeyNotPinned),
    ] as [(Int32, String, ServerFault.Observed, ServerFault)])
    func namesTheFault(_ code: Int32, _ text: String, _ observed: ServerFault.Observed, _ fault: ServerFault) {
        #expect(ServerFault.classify(curlCode: code, curlText: text, observed: observed) == fault)
    }

    @Test(arguments: [
        (1, "Protocol \"gopher\" not supported or disabled in libcurl", headOpen),
        (27, "", bodyStarted),
        (56, "Connection reset by peer", bodyStarted),
        (56, "", headOpen),
        (8, "Lookup of credentials failed", headOpen),
        (7, "Failed to connect to 127.0.0.1 port 9: Connection refused", headOpen),
        (28, "Operation timed out", headOpen),
        (60, "SSL certificate problem: self-signed certificate", headOpen),
    ] as [(Int32, String, ServerFault.Observed)])
    func leavesOtherFailuresToTheCodeTable(_ code: Int32, _ text: String, _ observed: ServerFault.Observed) {
        #expect(ServerFault.classify(curlCode: code, curlText: text, observed: observed) == nil)
    }

    @Test(arguments: [
        (ServerFault.notHTTP1StatusLine, TransferError.Code.badServerResponse, "status line is malformed"),
        (.invalidContentLength, .badServerResponse, "invalid Content-Length"),
        (.malformedHeaderLine, .badServerResponse, "malformed header line"),
        (.http09, .badServerResponse, "HTTP/0.9"),
        (.headerLineTooLong, .badServerResponse, "header line over 100 KB"),
        (.headTooLarge, .badServerResponse, "too large response headers"),
        (.informationalFlood(count: 40), .badServerResponse, "40 interim 1xx responses"),
        (.badChunkedEncoding, .badServerResponse, "chunked encoding is malformed"),
        (.bodyShorterThanDeclared, .networkConnectionLost, "body shorter than declared"),
        (.emptyReply, .badServerResponse, "without sending a response"),
        (.publicKeyNotPinned, .serverCertificateUntrusted, "does not match the pinned public key"),
    ] as [(ServerFault, TransferError.Code, String)])
    func failsWithACodeAndASentenceNamingTheServer(_ fault: ServerFault, _ code: TransferError.Code, _ words: String) {
        #expect(fault.code == code)
        #expect(fault.message.contains(words), "\(fault.message)")
        #expect(fault.message.hasPrefix("the server"), "\(fault.message)")
    }

    @Test func aShortBodyStaysResumable() {
        #expect(CurlErrorMapping.isResumable(ServerFault.bodyShorterThanDeclared.code))
        #expect(!CurlErrorMapping.isResumable(ServerFault.badChunkedEncoding.code))
    }
}

/// What a refused answer to a range request says about it.
@Suite struct RestartReasonTests {
    @Test(arguments: [
        (ResumeResponseDecision.RestartReason.wrongStart(expected: 10, actual: 0), "starts at byte 0, not at byte 10"),
        (.totalChanged(expected: 20, actual: 30), "a total of 30 bytes, not the 20"),
        (.contentRangeMissing, "206 has no Content-Range"),
        (.contentRangeMalformed("bytes x-y/z\r\n"), "malformed Content-Range 'bytes x-y/z\\x0D\\x0A'"),
        (.contentEncoded("gzip"), "content-encoded (gzip)"),
        (.validatorChanged("ETag \"a\" became \"b\""), "the resource changed since the partial file"),
        (.notSatisfiable("416 total 5 is not the offset 10"), "the server's 416 total 5"),
        (.rangeIgnored, "ignored the range"),
    ] as [(ResumeResponseDecision.RestartReason, String)])
    func namesWhatTheServerGotWrong(_ reason: ResumeResponseDecision.RestartReason, _ words: String) {
        #expect(reason.message.contains(words), "\(reason.message)")
        #expect(reason.message.hasSuffix("; started again from byte 0"))
    }

    /// Content-Length frames an HTTP/1.1 body only as one non-negative 64-bit number.
    @Test func framing() {
        func fault(_ headers: [(String, String)]) -> ServerFault? { ServerFault.framingFault(headers.map { HTTPHeader($0.0, $0.1) }) }
        #expect(fault([("Content-Length", "2")]) == nil)
        #expect(fault([("Content-Length", "2"), ("content-length", " 2 ")]) == nil, "the same value twice")
        #expect(fault([("Content-Length", "2, 2")]) == nil)
        #expect(fault([]) == nil && fault([("Content-Length", "9223372036854775807")]) == nil)
        #expect(fault([("Content-Length", "99999999999999999999")]) == .invalidContentLength)
        #expect(fault([("Content-Length", "9223372036854775808")]) == .invalidContentLength)
        #expect(fault([("Content-Length", "2"), ("Content-Length", "5")]) == .invalidContentLength)
        #expect(fault([("Content-Length", "2, 5")]) == .invalidContentLength)
        #expect(fault([("Content-Length", "-1")]) == .invalidContentLength && fault([("Content-Length", "")]) == .invalidContentLength)
        #expect(fault([("Content-Length", "+2")]) == .invalidContentLength)
        #expect(fault([("Transfer-Encoding", "chunked"), ("Content-Length", "abc")]) == nil, "chunked framing wins")
    }
}
