import Foundation
import TestSupport
import Testing
@testable import TransferKit

/// A resume of a 20-byte file (10 bytes on disk) against servers whose every answer, to the
/// range request and to any restart, is one scripted response: right or wrong status,
/// Content-Range and length. Whatever they say, the task ends, and a successful download is
/// the whole file continued at the right byte, or a whole body sent from byte 0; never the
/// partial file spliced with bytes from another offset.
@Suite struct ResumeLiesTests {
    static let statuses = ["200 OK", "206 Partial Content", "416 Range Not Satisfiable"]
    static let ranges: [String?] = [
        "bytes 10-19/20", "bytes 0-9/20", "bytes 10-19/30", "bytes 5-14/20", "bytes 10-19/*", "garbage", "bytes */20", "bytes */10", nil,
    ]
    static let cases = statuses.flatMap { status in ranges.map { (status, $0) } }
    static let server = Result {
        try HostileServer(Dictionary(uniqueKeysWithValues: cases.enumerated().map { i, c in
            var head = "HTTP/1.1 \(c.0)\r\nETag: \"e\"\r\nContent-Length: 10\r\n"
            if let range = c.1 { head += "Content-Range: \(range)\r\n" }
            return ("/lie-\(i)", HostileServer.Reply(head + "\r\nKLMNOPQRST"))
        }))
    }

    @Test(arguments: Array(cases.indices))
    func aLyingAnswerNeverSplicesThePartialFile(_ index: Int) async throws {
        let server = try Self.server.get()
        let directory = try privateDirectory("lies")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let partial = directory + "/.lie.ttpart"
        try Data("ABCDEFGHIJ".utf8).write(to: URL(fileURLWithPath: partial))
        let resume = ResumeData(url: server.base + "/lie-\(index)", method: "GET", requestHeaders: [], entityTag: "\"e\"",
                                lastModified: nil, bytesReceived: 10, expectedTotal: 20, partialFilePath: partial, createdAt: Date(),
                                sessionKindName: "ephemeral", originalTaskIdentifier: 1).encoded()
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = directory })
        defer { session.finishTasksAndInvalidate() }
        let script = "\(Self.cases[index])"
        do {
            let (file, response) = try await session.download(resumeFrom: resume)
            defer { try? FileManager.default.removeItem(at: file) }
            let body = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            guard (200..<300).contains(response.statusCode) else { return }  // an HTTP error is its own body
            #expect(["ABCDEFGHIJKLMNOPQRST", "KLMNOPQRST", "ABCDEFGHIJ"].contains(body), "\(script): \(body)")
            // Only a 206 that continues at byte 10 (of 20, or of a total it does not state).
            if body == "ABCDEFGHIJKLMNOPQRST" {
                #expect(["bytes 10-19/20", "bytes 10-19/*"].contains(Self.cases[index].1), "\(script)")
            }
        } catch let error as TransferError {
            #expect(error.code != .unknown, "\(script): \(error)")
        }
    }
}
