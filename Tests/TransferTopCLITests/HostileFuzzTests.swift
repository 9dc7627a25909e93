import Foundation
import PropertyBased
import TestSupport
import Testing

/// Random broken servers against the binary: status lines, header sizes and counts, chunk
/// framing, Content-Length and Content-Range lies, silence. Whatever the server sends, the run
/// ends within its request timeout, exits 0, 1 or 2 without a crash, keeps no finished file
/// when it failed, and a finished file has the length the server declared.
@Suite struct HostileFuzzTests {
    // Well-formed answers come up more often, so the declared-length check gets runs that pass.
    static let statusLines = [
        "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.0 200 OK", "HTTP/1.0 200 OK", "HTTP/1.1 206 Partial Content", "HTTP/1.1 200", "HTTP/1.1 abc OK",
        "HTTP/9.9 200 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 -1 Bad", "garbage", "", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK",
        "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 102 Processing", "HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd",
        "HTTP/1.1 301 Moved\r\nLocation: data:,hi", "\u{0}\u{1}\u{2}", "HTTP/1.1 200 OK\r\nHTTP/1.1 200 OK",
    ]
    static let headerLines = [
        "Content-Length: 0", "Content-Length: 5", "Content-Length: 11", "Content-Length: 100", "Content-Length: -1",
        "Content-Length: abc", "Content-Length: 99999999999999999999999", "Content-Length: 5, 6",
        "Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked", "Content-Encoding: gzip", "Content-Encoding: zstd",
        "Content-Range: bytes 0-4/5", "Content-Range: bytes 5-9/10", "Content-Range: bytes */5", "Content-Range: garbage",
        "ETag: \"x\"", "Accept-Ranges: bytes", "Connection: close", "X-Empty:", ": no name", "no colon at all",
        "Location: /elsewhere", "X-Nul: a\u{0}b", "Content-Type: text/plain; charset=\u{FF}",
    ]
    static let bodyPieces = [
        "hello", " world", "5\r\nhello\r\n", "0\r\n\r\n", "zz\r\n", "ffffffffffffffffff\r\n", "3\r\nab", "\r\n",
        "6;ext=1\r\n world\r\n", "-1\r\n", "\u{1F}\u{8B}\u{8}\u{0}", "HTTP/1.1 200 OK\r\n\r\n",
    ]
    static let headerRepeats = [0, 0, 0, 0, 1, 50, 3000, 40_000]
    static let lineSizes = [0, 0, 0, 0, 10, 50_000, 101 * 1024]

    struct Script: Sendable, CustomStringConvertible {
        var status: Int, headers: [Int], body: [Int], repeats: Int, lineSize: Int, flags: Int

        var holdsOpen: Bool { flags % 8 == 0 }
        var compressed: Bool { flags & 2 != 0 }
        var headerTexts: [String] { headers.map { HostileFuzzTests.headerLines[$0 % HostileFuzzTests.headerLines.count] } }
        var statusText: String { HostileFuzzTests.statusLines[status % HostileFuzzTests.statusLines.count] }

        var reply: HostileServer.Reply {
            var head = statusText + "\r\n" + headerTexts.map { $0 + "\r\n" }.joined()
            let size = HostileFuzzTests.lineSizes[lineSize % HostileFuzzTests.lineSizes.count]
            if size > 0 { head += "X-Long: " + String(repeating: "a", count: size) + "\r\n" }
            let tail = "\r\n" + body.map { HostileFuzzTests.bodyPieces[$0 % HostileFuzzTests.bodyPieces.count] }.joined()
            return HostileServer.Reply(Array(head.utf8), repeating: Array("X-R: v\r\n".utf8),
                                       count: HostileFuzzTests.headerRepeats[repeats % HostileFuzzTests.headerRepeats.count],
                                       tail: Array(tail.utf8), holdsOpen: holdsOpen)
        }

        /// The one plain Content-Length a successful download must match, if the script has one.
        var declaredLength: Int? {
            let texts = headerTexts
            guard statusText == "HTTP/1.1 200 OK" || statusText == "HTTP/1.0 200 OK" || statusText == "HTTP/1.1 200",
                  !texts.contains(where: { $0.hasPrefix("Transfer-Encoding") }),
                  !(compressed && texts.contains(where: { $0.hasPrefix("Content-Encoding") })) else { return nil }
            let lengths = texts.filter { $0.hasPrefix("Content-Length: ") }
            guard lengths.count == 1 else { return nil }
            return Int(lengths[0].dropFirst("Content-Length: ".count)).flatMap { $0 >= 0 ? $0 : nil }
        }

        var description: String {
            "\(statusText.debugDescription) \(headerTexts) repeats \(repeats) line \(lineSize) body \(body) flags \(flags)"
        }
    }

    static let scripts = zip(
        Gen<Int>.value(in: 0...1000), Gen<Int>.value(in: 0...1000).array(of: 0...3),
        Gen<Int>.value(in: 0...1000).array(of: 0...5), Gen<Int>.value(in: 0...1000),
        Gen<Int>.value(in: 0...1000), Gen<Int>.value(in: 0...1000)
    ).map { Script(status: $0.0, headers: $0.1, body: $0.2, repeats: $0.3, lineSize: $0.4, flags: $0.5) }

    @Test func aBrokenServerNeverCrashesHangsOrLeavesAFalseFile() async throws {
        await propertyCheck(count: 40, input: Self.scripts) { script in
            let server = try HostileServer(["/f": script.reply])
            defer { server.stop() }
            let dir = try Run.tempDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let args = ["--no-tui", "--request-timeout", "1", "-o", dir + "/out"] + (script.compressed ? ["--compressed"] : [])
            let r = try await Run.binary(args + [server.base + "/f"], environment: ["XDG_STATE_HOME": dir + "/state"])
            #expect([0, 1, 2].contains(r.status), "\(script): exit \(r.status)\n\(r.stdout)\(r.stderr)")
            let finished = ((try? FileManager.default.contentsOfDirectory(atPath: dir + "/out")) ?? []).filter { !$0.hasPrefix(".") }
            if r.status != 0 {
                #expect(finished.isEmpty, "\(script): failed but kept \(finished)\n\(r.stdout)")
            } else if let length = script.declaredLength {
                #expect(finished == ["f"] && fileSize(dir + "/out/f") == length,
                        "\(script): \(finished) of \(fileSize(dir + "/out/f")) bytes, declared \(length)\n\(r.stdout)")
            }
        }
    }
}
