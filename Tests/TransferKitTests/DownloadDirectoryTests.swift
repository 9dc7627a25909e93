import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// With `downloadDirectory` set, a download's bytes live in a hidden `.NAME.ttpart`
/// beside their destination (finishing is a rename), created only once body bytes arrive.
@Suite struct DownloadDirectoryTests {
    /// Where didFinishDownloadingTo pointed, and what the file held then.
    final class Landing: TransferDownloadDelegate, @unchecked Sendable {
        let seen = Locked<(path: String, data: Data?)?>(nil)
        func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingTo location: URL) {
            seen.withLock { $0 = (location.path, FileManager.default.contents(atPath: location.path)) }
        }
    }

    func tempDir() throws -> String {
        let d = NSTemporaryDirectory() + "tk-dldir-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func entries(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    @Test(arguments: [1000, 300_000])
    func partialIsHiddenBesideTheDestination(size: Int) async throws {
        let server = try await TestServer.get()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let landing = Landing()
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = dir }, delegate: landing)
        defer { session.invalidateAndCancel() }
        let task = session.downloadTask(with: url("\(server.httpBase)/bytes/\(size)?seed=4"))
        task.resume()
        // The state is completed before the delegate queue has delivered the hand-over: wait for
        // the callback itself.
        try await waitUntil("didFinishDownloadingTo") { landing.seen.withLock { $0 } != nil }
        #expect(task.state == .completed)
        let seen = try #require(landing.seen.withLock { $0 })
        #expect(seen.path == dir + "/.\(size).ttpart")
        #expect(seen.data == Data(LoopbackServer.body(size: size, seed: 4)))
        try await waitUntil("hand-over file deleted") { entries(dir).isEmpty }
    }

    @Test func noFileBeforeTheFirstBodyByteAndNoneAfterAFailure() async throws {
        let server = try await TestServer.get()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = dir })
        defer { session.invalidateAndCancel() }
        let stalled = session.downloadTask(with: url("\(server.httpBase)/stall?size=100000&after=0"))
        stalled.resume()
        try await waitUntil("response head") { stalled.response != nil }
        #expect(entries(dir).isEmpty)
        stalled.cancel()
        let refused = session.downloadTask(with: url("http://127.0.0.1:1/nothing"))
        refused.resume()
        try await waitUntil("both done") { stalled.state == .completed && refused.state == .completed }
        #expect(refused.error != nil)
        #expect(entries(dir).isEmpty)
    }

    @Test func twoDownloadsOfOneNameGetTwoPartials() async throws {
        let server = try await TestServer.get()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // An earlier run's orphan holds the plain name: it is left alone.
        try Data("orphan".utf8).write(to: URL(fileURLWithPath: dir + "/.5000.ttpart"))
        let landing = Landing()
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = dir }, delegate: landing)
        defer { session.invalidateAndCancel() }
        let task = session.downloadTask(with: url("\(server.httpBase)/bytes/5000?seed=1"))
        task.resume()
        try await waitUntil("didFinishDownloadingTo") { landing.seen.withLock { $0 } != nil }
        #expect(landing.seen.withLock { $0?.path } == dir + "/.5000.2.ttpart")
        #expect(try String(contentsOfFile: dir + "/.5000.ttpart", encoding: .utf8) == "orphan")
    }

    @Test func resumeDataMayPointAtAHiddenPartialInTheDownloadDirectoryOnly() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in [".a.bin.ttpart", "a.bin"] { try Data(count: 10).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = dir })
        defer { session.invalidateAndCancel() }
        func data(_ path: String) -> Data {
            ResumeData(url: "http://127.0.0.1:1/a.bin", method: "GET", requestHeaders: [], entityTag: "\"e\"",
                       lastModified: nil, bytesReceived: 10, expectedTotal: 20, partialFilePath: path, createdAt: Date(),
                       sessionKindName: "ephemeral", originalTaskIdentifier: 1).encoded()
        }
        #expect(throws: Never.self) { try session.validateResumeData(data(dir + "/.a.bin.ttpart")) }
        // A finished (visible) file, a traversal, a file in a subdirectory: refused.
        for bad in [dir + "/a.bin", dir + "/sub/../.a.bin.ttpart", dir + "/x/.a.bin.ttpart"] {
            #expect(throws: ResumeDataError.self) { try session.validateResumeData(data(bad)) }
        }
    }

    /// Takes small bodies whole (`didFinishDownloadingBody`), as the CLI does.
    final class BodyTaker: TransferDownloadDelegate, @unchecked Sendable {
        let bodies = Locked<[Data]>([])
        let files = Locked<[String]>([])
        let completed = Locked(0)
        func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingBody body: Data) -> Bool {
            bodies.withLock { $0.append(body) }
            return true
        }
        func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingTo location: URL) {
            files.withLock { $0.append(location.path) }
        }
        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            completed.withLock { $0 += 1 }
        }
    }

    /// A body that never left memory is offered whole and, when taken, no file is
    /// ever made for it; a body too big for memory still arrives as a file.
    @Test func aSmallBodyIsOfferedWholeAndNoFileIsMade() async throws {
        let server = try await TestServer.get()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let taker = BodyTaker()
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = dir }, delegate: taker)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: url("\(server.httpBase)/bytes/1000?seed=7")).resume()
        session.downloadTask(with: url("\(server.httpBase)/bytes/300000?seed=8")).resume()
        try await waitUntil("both completed") { taker.completed.withLock { $0 } == 2 }
        #expect(taker.bodies.withLock { $0 } == [Data(LoopbackServer.body(size: 1000, seed: 7))])
        #expect(taker.files.withLock { $0 } == [dir + "/.300000.ttpart"])
        #expect(entries(dir).isEmpty)
    }

    /// The file of a small body is made on the delegate queue; when that fails (the directory
    /// is gone), the task fails with the file error, as it did when the transfer thread made it.
    @Test func aSmallBodyThatCannotBeWrittenFailsTheTask() async throws {
        let server = try await TestServer.get()
        let dir = try tempDir() + "/missing"
        let landing = Landing()
        let session = TransferSession(configuration: ephemeralConfig { $0.downloadDirectory = dir }, delegate: landing)
        defer { session.invalidateAndCancel() }
        let box = Locked<(URL?, TransferError?)?>(nil)
        let task = session.downloadTask(with: TransferRequest(url: url("\(server.httpBase)/bytes/1000?seed=2"))) { file, _, error in
            box.withLock { $0 = (file, error) }
        }
        task.resume()
        try await waitUntil("completion handler") { box.withLock { $0 } != nil }
        let (file, error) = try #require(box.withLock { $0 })
        #expect(file == nil)
        #expect(error?.code == .cannotCreateFile)
        #expect(task.error?.code == .cannotCreateFile)
        #expect(landing.seen.withLock { $0 } == nil)
    }
}
