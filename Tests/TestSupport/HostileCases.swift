/// The scripted servers of the hostile-server table: each breaks HTTP in one way, and the
/// words the failed task's message must contain to name it. Shared by the TransferKit and
/// the command-line tables, so both face the same bytes.
public struct HostileCase: Sendable, CustomStringConvertible {
    public var path: String
    public var reply: HostileServer.Reply
    /// Words the error message contains; nil: the task succeeds.
    public var words: String?
    public var description: String { path }

    public static let all: [HostileCase] = [
        HostileCase(path: "/bad-status-code", reply: .init("HTTP/1.1 abc OK\r\nContent-Length: 2\r\n\r\nhi"),
                    words: "status line is malformed"),
        HostileCase(path: "/unknown-version", reply: .init("HTTP/3.5 200 OK\r\nContent-Length: 2\r\n\r\nhi"),
                    words: "status line is malformed"),
        HostileCase(path: "/status-2000", reply: .init("HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nhi"),
                    words: "status line is malformed"),
        HostileCase(path: "/bad-content-length", reply: .init("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhi"),
                    words: "invalid Content-Length"),
        // A length past 64 bits read as none: the body ended with the connection, and a cut
        // body passed as whole. Two lengths that differ frame nothing either (RFC 9112, 6.3).
        HostileCase(path: "/huge-content-length",
                    reply: .init("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\nConnection: close\r\n\r\nhi"),
                    words: "invalid Content-Length"),
        HostileCase(path: "/two-content-lengths", reply: .init("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nhello"),
                    words: "invalid Content-Length"),
        HostileCase(path: "/header-without-colon", reply: .init("HTTP/1.1 200 OK\r\nno colon at all\r\nContent-Length: 2\r\n\r\nhi"),
                    words: "malformed header line"),
        HostileCase(path: "/http09", reply: .init("just some bytes without a head\n"), words: "HTTP/0.9"),
        HostileCase(path: "/not-http", reply: .init("HELLO THERE\r\n\r\nhi"), words: "without an HTTP status line"),
        HostileCase(path: "/long-header-line",
                    reply: .init(Array("HTTP/1.1 200 OK\r\nX-Big: ".utf8), repeating: Array("a".utf8), count: 200 * 1024,
                                 tail: Array("\r\nContent-Length: 2\r\n\r\nhi".utf8)),
                    words: "header line over 100 KB"),
        HostileCase(path: "/endless-head",
                    reply: .init(Array("HTTP/1.1 200 OK\r\n".utf8), repeating: Array("X-More: v\r\n".utf8), count: 40_000),
                    words: "response headers exceed 300 KB"),
        HostileCase(path: "/1xx-flood",
                    reply: .init([], repeating: Array("HTTP/1.1 102 Processing\r\n\r\n".utf8), count: 15_000),
                    words: "interim 1xx responses"),
        HostileCase(path: "/bad-chunk-size",
                    reply: .init("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
                    words: "chunked encoding is malformed"),
        HostileCase(path: "/bad-chunk-framing",
                    reply: .init("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n"),
                    words: "chunked encoding is malformed"),
        HostileCase(path: "/short-body", reply: .init("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhi"),
                    words: "body shorter than declared"),
        HostileCase(path: "/short-chunked", reply: .init("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n50\r\nhello"),
                    words: "body shorter than declared"),
        HostileCase(path: "/empty-reply", reply: .init(""), words: "without sending a response"),
        HostileCase(path: "/redirect-to-file",
                    reply: .init("HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\n\r\n"),
                    words: "redirected to a 'file:' URL, which is refused"),
        HostileCase(path: "/redirect-to-ftp",
                    reply: .init("HTTP/1.1 301 Moved\r\nLocation: ftp://127.0.0.1/x\r\nContent-Length: 0\r\n\r\n"),
                    words: "redirected to a 'ftp:' URL, which is refused"),
        // Bytes past Content-Length are not the body: as curl, the declared length is kept.
        HostileCase(path: "/long-body", reply: .init("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhello world"), words: nil),
    ]

    public static var routes: [String: HostileServer.Reply] {
        Dictionary(uniqueKeysWithValues: all.map { ($0.path, $0.reply) })
    }
}
