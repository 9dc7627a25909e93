import Foundation
import TestSupport
import Testing
@testable import TransferKit

/// Servers that break HTTP (`HostileCase`): each failure names what the server did wrong,
/// with a code that says whose fault it was, and a failed download leaves no file behind.
@Suite struct HostileServerTests {
    static let server = Result { try HostileServer(HostileCase.routes.merging(limitRoutes) { a, _ in a }) }

    static let limitRoutes: [String: HostileServer.Reply] = [
        "/zstd-bomb": HostileServer.zstdBomb(blocks: 4000),  // 500 MiB of zeros in 16 KB
        "/announced-big": .init("HTTP/1.1 200 OK\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n0123456789"),
        "/loop-3": .init("HTTP/1.1 302 Found\r\nLocation: /loop-3\r\nContent-Length: 0\r\n\r\n"),
        "/loop-0": .init("HTTP/1.1 302 Found\r\nLocation: /loop-0\r\nContent-Length: 0\r\n\r\n"),
        // Every request, ranged or not, gets the first half of the file as a 206.
        "/wrong-range": .init("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9/20\r\nContent-Length: 10\r\nETag: \"e\"\r\n\r\n0123456789"),
    ]

    /// A resume answered with the wrong Content-Range: that hop's record says so and the
    /// download starts again from zero; the plain GET's 206 then fails the task, naming it.
    /// The partial file is never extended with the wrong bytes.
    @Test func aResumeAnsweredWithTheWrongRangeIsNamed() async throws {
        let server = try Self.server.get()
        let directory = try privateDirectory("wrong-range")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let partial = directory + "/.wrong-range.ttpart"
        try Data("ABCDEFGHIJ".utf8).write(to: URL(fileURLWithPath: partial))
        let resume = ResumeData(url: server.base + "/wrong-range", method: "GET", requestHeaders: [], entityTag: "\"e\"",
                                lastModified: nil, bytesReceived: 10, expectedTotal: 20, partialFilePath: partial, createdAt: Date(),
                                sessionKindName: "ephemeral", originalTaskIdentifier: 1).encoded()
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = directory }, delegate: rec)
        defer { session.finishTasksAndInvalidate() }
        session.downloadTask(withResumeData: resume).resume()
        try await rec.waitForCompletion()
        let error = try #require(rec.error)
        #expect(error.code == .badServerResponse && error.message.contains("206 Partial Content to a request without Range"),
                "\(error)")
        let hops = try #require(rec.state.withLock { $0.metrics }).transactionMetrics
        #expect(hops.count == 2)
        #expect(hops.first?.errorDescription?.contains("starts at byte 0, not at byte 10 where the partial file ends") == true,
                "\(hops.map(\.errorDescription))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    static let codes: [String: TransferError.Code] = [
        "/short-body": .networkConnectionLost, "/short-chunked": .networkConnectionLost,
        "/redirect-to-file": .unsupportedURL, "/redirect-to-ftp": .unsupportedURL,
    ]

    @Test(arguments: HostileCase.all)
    func downloadsNameTheServersFault(_ hostile: HostileCase) async throws {
        let server = try Self.server.get()
        let directory = try privateDirectory("hostile")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = directory })
        defer { session.finishTasksAndInvalidate() }
        let request = TransferRequest(url: url(server.base + hostile.path))
        guard let words = hostile.words else {
            let (file, _) = try await session.download(for: request)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try Data(contentsOf: file) == Data("he".utf8))
            return
        }
        do {
            let (file, response) = try await session.download(for: request)
            Issue.record("\(hostile.path) completed: \(response.statusCode) \(file.path)")
        } catch {
            #expect(error.message.contains(words), "\(hostile.path): \(error.message)")
            #expect(error.code == Self.codes[hostile.path] ?? .badServerResponse, "\(hostile.path): \(error)")
            #expect(error.resumeData == nil, "\(hostile.path) offers no range: nothing to resume")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "\(hostile.path) left a file")
    }
}

/// `maximumContentLength`, the decompression-bomb guard and `httpMaximumRedirects`, against
/// the same scripted server.
@Suite struct SizeAndRedirectLimitTests {
    func failure(_ change: (inout TransferConfiguration) -> Void, _ path: String, directory: String) async throws -> TransferError? {
        let server = try HostileServerTests.server.get()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.downloadDirectory = directory
            change(&$0)
        })
        defer { session.finishTasksAndInvalidate() }
        do {
            let (file, response) = try await session.download(for: TransferRequest(url: url(server.base + path)))
            Issue.record("\(path) completed: \(response.statusCode) \(file.path)")
            return nil
        } catch {
            return error
        }
    }

    @Test func aDecodedBombStopsPastTenMiBAndLeavesNoFile() async throws {
        let directory = try privateDirectory("bomb")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = try #require(await failure({ $0.httpAcceptsContentEncoding = true }, "/zstd-bomb", directory: directory))
        #expect(error.code == .dataLengthExceedsMaximum, "\(error)")
        #expect(error.message.contains("decompression bomb"), "\(error.message)")
        #expect(error.resumeData == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test func aMaximumReplacesTheRatioGuardAndCountsDecodedBytes() async throws {
        let directory = try privateDirectory("max")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = try #require(await failure({
            $0.maximumContentLength = 20 << 20
            $0.maximumDecodedRatio = nil
        }, "/zstd-bomb", directory: directory))
        #expect(error.code == .dataLengthExceedsMaximum, "\(error)")
        #expect(error.message.contains("past the maximum of \(20 << 20) bytes"), "\(error.message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test func anAnnouncedLengthOverTheMaximumFailsAtTheHead() async throws {
        let directory = try privateDirectory("announced")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = try #require(await failure({ $0.maximumContentLength = 1000 }, "/announced-big", directory: directory))
        #expect(error.code == .dataLengthExceedsMaximum, "\(error)")
        #expect(error.message.contains("announced 5000000 bytes, more than the maximum of 1000"), "\(error.message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test(arguments: [(3, "/loop-3", "more than 3 redirects"), (0, "/loop-0", "no redirect may be followed")])
    func theRedirectLimitIsTheConfigurations(_ limit: Int, _ path: String, _ words: String) async throws {
        let directory = try privateDirectory("redirects")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = try #require(await failure({ $0.httpMaximumRedirects = limit }, path, directory: directory))
        #expect(error.code == .httpTooManyRedirects, "\(error)")
        #expect(error.message.contains(words), "\(error.message)")
        let server = try HostileServerTests.server.get()
        #expect(server.requestedPaths.filter { $0 == path }.count == limit + 1)
    }
}
