import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Content coding as URLSession does it: Accept-Encoding with every coding this
/// libcurl decodes, the body handed over decoded, expectedContentLength -1; and curl's way
/// (raw bytes, nothing asked) when the configuration turns it off.
@Suite struct ContentCodingTests {
    static let routes = ["gzip", "deflate", "brotli", "zstd"]

    /// The request headers the server saw, lower-cased names.
    func seenHeaders(_ session: TransferSession, _ request: TransferRequest) async throws -> [String: String] {
        let (data, _) = try await session.data(for: request)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let pairs = try #require(json["headers"] as? [[String]])
        return Dictionary(pairs.map { ($0[0].lowercased(), $0[1]) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func asksForEveryCodingLibcurlDecodes() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let seen = try await seenHeaders(session, TransferRequest(url: url("\(server.httpBase)/headers")))
        let asked = Set((seen["accept-encoding"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(asked.isSuperset(of: ["gzip", "deflate", "br", "zstd"]), "Accept-Encoding: \(seen["accept-encoding"] ?? "none")")
    }

    @Test(arguments: routes, [0, 1000, 300_000])
    func dataTasksGetTheDecodedBody(route: String, size: Int) async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        for base in [server.httpBase, server.httpsBase] {
            let (data, response) = try await session.data(from: url("\(base)/\(route)?size=\(size)&seed=7"))
            let wire = try #require(LoopbackServer.encodedBody(route, size: size, seed: 7))
            #expect(response.statusCode == 200)
            #expect(sha256(data) == sha256(expectedBody(size, seed: 7)), "\(route) \(size) over \(base)")
            #expect(response.isContentDecoded)
            #expect(response.expectedContentLength == -1)
            // The head is kept as the server sent it: Content-Length is the encoded length.
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(wire.count))
        }
    }

    @Test func aBodyCompressedForRealDecodesToItsText() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: url("\(server.httpBase)/gzip?fixture=1"))
        #expect(String(decoding: data, as: UTF8.self) == LoopbackServer.gzipFixtureText)
        #expect(response.mimeType == "text/plain")
        #expect(response.textEncodingName == "utf-8")
    }

    @Test(arguments: routes)
    func downloadTasksDecodeTooAndDoNotKnowTheLength(route: String) async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let (file, response) = try await session.download(for: TransferRequest(url: url("\(server.httpBase)/\(route)?size=200000&seed=3")))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(sha256(try Data(contentsOf: file)) == sha256(expectedBody(200_000, seed: 3)))
        #expect(response.expectedContentLength == -1)
    }

    @Test func aDecodedDownloadIsNotResumable() async throws {
        let server = try await TestServer.get()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        let task = session.downloadTask(with: url("\(server.httpBase)/gzip?size=300000"))
        task.resume()
        try await rec.waitForCompletion()
        #expect(task.countOfBytesExpectedToReceive == -1)
        #expect(task.countOfBytesReceived == 300_000)
        #expect(task.snapshot().isResumable == false)
    }

    @Test(arguments: routes)
    func withoutContentCodingTheBytesAreKeptAsSent(route: String) async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig { $0.httpAcceptsContentEncoding = false })
        defer { session.finishTasksAndInvalidate() }
        let seen = try await seenHeaders(session, TransferRequest(url: url("\(server.httpBase)/headers")))
        #expect(seen["accept-encoding"] == nil)
        let (data, response) = try await session.data(from: url("\(server.httpBase)/\(route)?size=5000"))
        let wire = try #require(LoopbackServer.encodedBody(route, size: 5000))
        #expect(data == Data(wire))
        #expect(!response.isContentDecoded)
        #expect(response.expectedContentLength == Int64(wire.count))
    }

    @Test func aByteRangeRequestAsksForNoCoding() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        var request = TransferRequest(url: url("\(server.httpBase)/headers"))
        request.setValue("bytes=0-", forHTTPHeaderField: "Range")
        let seen = try await seenHeaders(session, request)
        #expect(seen["accept-encoding"] == nil)
        #expect(seen["range"] == "bytes=0-")
    }
}
