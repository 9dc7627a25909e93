/// What a failed HTTP exchange says the server did wrong, read from libcurl's `CURLcode`, the
/// text of its error buffer and what the engine saw of the response.
///
/// libcurl 7.88 reports several server faults under codes that mean something else to a
/// user: a status line that is not HTTP/1.x comes back as CURLE_UNSUPPORTED_PROTOCOL (the
/// code for an unknown URL scheme), a bad header as CURLE_WEIRD_SERVER_REPLY, a header line
/// over its 100 KB line buffer as CURLE_OUT_OF_MEMORY, an endless head or bad chunk framing
/// as CURLE_RECV_ERROR. The error buffer's text tells them apart. The texts matched here are
/// those of Debian 12's libcurl 7.88, as the hostile-server tests see them
/// (Tests/TestSupport/HostileCases.swift); another version's texts fall back to the code
/// table (`CurlErrorMapping`), never to wrong words.
public enum ServerFault: Sendable, Equatable {
    case notHTTP1StatusLine
    case http09
    case invalidContentLength
    case malformedHeaderLine
    case headerLineTooLong
    case headTooLarge
    case informationalFlood(count: Int)
    case badChunkedEncoding
    case bodyShorterThanDeclared
    case emptyReply
    case publicKeyNotPinned

    /// What the engine knows besides libcurl's code and text.
    public struct Observed: Sendable, Equatable {
        /// The current response's head ended (its blank line arrived).
        public var headComplete: Bool
        /// 1xx heads received for this request.
        public var informationalHeads: Int

        public init(headComplete: Bool = false, informationalHeads: Int = 0) {
            self.headComplete = headComplete
            self.informationalHeads = informationalHeads
        }
    }

    /// More 1xx heads than any sensible exchange sends (one 100 Continue, a few 102/103).
    public static let informationalFloodThreshold = 8

    /// The server's fault behind this failure, or nil when the code means what it says.
    public static func classify(curlCode: Int32, curlText: String, observed: Observed) -> ServerFault? {
        switch curlCode {
        case 1:  // CURLE_UNSUPPORTED_PROTOCOL
            if curlText.contains("HTTP/0.9") { return .http09 }
            if curlText.contains("Unsupported HTTP version") || curlText.contains("Unsupported response code") {
                return .notHTTP1StatusLine
            }
            return nil
        case 8:  // CURLE_WEIRD_SERVER_REPLY
            if curlText.contains("Content-Length") { return .invalidContentLength }
            if curlText.contains("Header without colon") || curlText.contains("Nul byte in header") { return .malformedHeaderLine }
            return nil
        case 27 where !observed.headComplete:  // CURLE_OUT_OF_MEMORY: the header line buffer is full
            return .headerLineTooLong
        case 56:  // CURLE_RECV_ERROR
            if curlText.contains("Too large response headers") {
                return observed.informationalHeads >= informationalFloodThreshold
                    ? .informationalFlood(count: observed.informationalHeads) : .headTooLarge
            }
            if curlText.contains("chunked-encoding") { return .badChunkedEncoding }
            return nil
        case 18:  // CURLE_PARTIAL_FILE
            return .bodyShorterThanDeclared
        case 52:  // CURLE_GOT_NOTHING
            return .emptyReply
        case 90:  // CURLE_SSL_PINNEDPUBKEYNOTMATCH
            return .publicKeyNotPinned
        default:
            return nil
        }
    }

    /// An HTTP/1.1 head whose Content-Length cannot frame its body (RFC 9112, 6.3): without
    /// Transfer-Encoding, every Content-Length value must be the same non-negative number that
    /// fits 64 bits. libcurl 7.88 refuses text there itself, but reads a number too large for
    /// it as "no length" (the body then ends when the connection does, and a cut body looks
    /// complete) and takes one of two different values.
    public static func framingFault(_ headers: [HTTPHeader]) -> ServerFault? {
        guard headers.first(named: "Transfer-Encoding") == nil else { return nil }
        var length: Int64?
        for h in headers where HTTPHeader.namesEqual(h.name, "Content-Length") {
            for part in h.value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = part.trimmedSpacesTabs
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text),
                      length == nil || length == value else { return .invalidContentLength }
                length = value
            }
        }
        return nil
    }

    /// The error code a task fails with. A short body stays `networkConnectionLost` so a
    /// download keeps its partial file and resume data; the rest are the server's answers.
    public var code: TransferError.Code {
        switch self {
        case .bodyShorterThanDeclared: return .networkConnectionLost
        case .publicKeyNotPinned: return .serverCertificateUntrusted
        case .emptyReply, .notHTTP1StatusLine, .http09, .invalidContentLength, .malformedHeaderLine, .headerLineTooLong, .headTooLarge,
             .informationalFlood, .badChunkedEncoding:
            return .badServerResponse
        }
    }

    /// One sentence naming what the server did wrong.
    public var message: String {
        switch self {
        case .notHTTP1StatusLine:
            return "the server's status line is malformed (not HTTP/1.x followed by a three-digit status code)"
        case .invalidContentLength:
            return "the server sent an invalid Content-Length (not one non-negative number that fits 64 bits)"
        case .malformedHeaderLine:
            return "the server sent a malformed header line (no colon, or a NUL byte)"
        case .http09:
            return "the server answered without an HTTP status line (an HTTP/0.9 or non-HTTP reply, refused)"
        case .headerLineTooLong:
            return "the server sent a response header line over 100 KB (too large response header)"
        case .headTooLarge:
            return "the server's response headers exceed 300 KB (too large response headers)"
        case .informationalFlood(let count):
            return "the server sent \(count) interim 1xx responses and no final one before the head limit (too large response headers)"
        case .badChunkedEncoding:
            return "the server's chunked encoding is malformed (illegal or missing chunk size or framing)"
        case .bodyShorterThanDeclared:
            return "the server closed the connection before the end of the body it announced (body shorter than declared)"
        case .emptyReply:
            return "the server closed the connection without sending a response (empty reply)"
        case .publicKeyNotPinned:
            return "the server's public key does not match the pinned public key"
        }
    }
}
