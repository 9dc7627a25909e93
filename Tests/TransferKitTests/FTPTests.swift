import Foundation
import TestSupport
import Testing
@testable import TransferKit

/// ftp:// through libcurl against a real pyftpdlib server on 127.0.0.1:
/// download with progress and metrics, a refused login, a missing file, cancel with resume
/// data and a byte-exact continuation with REST, and an upload.
@Suite(.serialized) struct FTPTests {
    private func withServer(_ body: (FTPTestServer) async throws -> Void) async throws {
        let root = NSTemporaryDirectory() + "tk-ftp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await FTPTestServer.start(root: root)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func randomBytes(_ n: Int) -> Data {
        var g = SystemRandomNumberGenerator()
        return Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    @Test func downloadIsByteExactWithProgressAndMetrics() async throws {
        try await withServer { server in
            let body = randomBytes(2 * 1024 * 1024 + 5)
            try body.write(to: URL(fileURLWithPath: server.root + "/file.bin"))
            let rec = Recorder()
            let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
            defer { session.invalidateAndCancel() }
            let task = session.downloadTask(with: server.url("file.bin"))
            task.resume()
            try await rec.waitForCompletion()
            #expect(rec.error == nil, "\(String(describing: rec.error))")
            let (downloaded, writes, metrics) = rec.state.withLock { ($0.downloaded, $0.writes, $0.metrics) }
            #expect(downloaded.map(sha256) == sha256(body))
            #expect(writes == Int64(body.count))
            #expect(task.countOfBytesExpectedToReceive == Int64(body.count), "SIZE gave the length")
            let response = try #require(task.response)
            #expect(response.statusCode == 0 && response.networkProtocolName == "ftp")
            #expect(response.value(forHTTPHeaderField: "Last-Modified") != nil, "MDTM gave the validator")
            let m = try #require(metrics?.transactionMetrics.last)
            #expect(m.networkProtocolName == "ftp" && m.statusCode == nil)
            #expect(m.remoteAddress == "127.0.0.1" && m.remotePort == server.port)
            #expect(!m.isReusedConnection)
            // DNS, connect and the first byte are dated, in order; no TLS on plain ftp.
            let connectEnd = try #require(m.connectEndDate)
            let responseStart = try #require(m.responseStartDate)
            #expect(m.connectStartDate != nil && m.secureConnectionStartDate == nil)
            #expect(connectEnd <= responseStart && responseStart <= m.responseEndDate!)
            #expect(m.countOfResponseBodyBytesReceived == Int64(body.count))
        }
    }

    @Test func aWrongPasswordFailsCleanlyWithoutLeakingIt() async throws {
        try await withServer { server in
            try Data("x".utf8).write(to: URL(fileURLWithPath: server.root + "/a.txt"))
            let session = TransferSession(configuration: ephemeralConfig())
            defer { session.invalidateAndCancel() }
            do {
                _ = try await session.data(from: server.url("a.txt", password: "not-the-pw-4711"))
                Issue.record("a refused login must fail")
            } catch let error as TransferError {
                #expect(error.code == .userAuthenticationRequired)
                #expect(error.curlCode == 67, "CURLE_LOGIN_DENIED")
                #expect(!error.description.contains("not-the-pw-4711"))
                #expect(error.failingURL?.contains("not-the-pw-4711") == false)
            }
        }
    }

    @Test func credentialsFromTheConfigurationLogIn() async throws {
        try await withServer { server in
            try Data("from -u".utf8).write(to: URL(fileURLWithPath: server.root + "/a.txt"))
            let session = TransferSession(configuration: ephemeralConfig {
                $0.credential = TransferCredential(user: server.user, password: server.password)
            })
            defer { session.invalidateAndCancel() }
            let (data, _) = try await session.data(from: server.url("a.txt", credentials: false))
            #expect(data == Data("from -u".utf8))
        }
    }

    @Test func aMissingFileIsFileDoesNotExist() async throws {
        try await withServer { server in
            let session = TransferSession(configuration: ephemeralConfig())
            defer { session.invalidateAndCancel() }
            do {
                _ = try await session.data(from: server.url("nothing-here.bin"))
                Issue.record("a missing file must fail")
            } catch let error as TransferError {
                #expect(error.code == .fileDoesNotExist)
            }
        }
    }

    /// The server sends the first MiB of a `held-` file fetched from offset 0 and holds the
    /// rest (ftp_server.py), so the cancel lands midway whatever the machine's load; the resumed
    /// request (REST) goes at full speed.
    @Test func cancelWithResumeDataThenResumeWithRESTIsByteExact() async throws {
        try await withServer { server in
            let body = randomBytes(8 * 1024 * 1024)
            try body.write(to: URL(fileURLWithPath: server.root + "/held-big.bin"))
            let rec = Recorder()
            let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
            defer { session.invalidateAndCancel() }
            let first = session.downloadTask(with: server.url("held-big.bin"))
            first.resume()
            try await waitUntil("300 KB of the first transfer") { first.countOfBytesReceived >= 300_000 }
            #expect(first.isResumable, "MDTM and REST make an FTP download resumable")
            let box = Box<Data?>()
            first.cancel(byProducingResumeData: { box.set($0) })
            let resume = try #require(try await box.wait(), "resume data")
            try await rec.waitForCompletion()
            #expect(rec.error?.code == .cancelled)
            let parsed = try ResumeData(decoding: resume)
            #expect(parsed.bytesReceived > 0 && parsed.bytesReceived < Int64(body.count))
            // In memory the resume data holds the task's URL, as URLSession's does; the copy a
            // program writes to disk (the CLI's) drops the password.
            #expect(!parsed.withoutCredentials().url.contains(server.password))

            let rec2 = Recorder()
            let session2 = TransferSession(configuration: ephemeralConfig(), delegate: rec2)
            defer { session2.invalidateAndCancel() }
            // As a program that stored it redacted gets it back: its own URL (with the password) restored.
            let restored = try #require(parsed.withoutCredentials().restoringCredentials(from: server.url("held-big.bin").absoluteString))
            session2.downloadTask(withResumeData: restored.encoded()).resume()
            try await rec2.waitForCompletion()
            #expect(rec2.error == nil, "\(String(describing: rec2.error))")
            let (downloaded, resumedAt, metrics) = rec2.state.withLock { ($0.downloaded, $0.resumedAt, $0.metrics) }
            #expect(resumedAt == [parsed.bytesReceived], "didResumeAtOffset at the partial's length")
            #expect(downloaded.map(sha256) == sha256(body), "byte-exact after the resume")
            let moved = metrics?.transactionMetrics.last?.countOfResponseBodyBytesReceived
            #expect(moved == Int64(body.count) - parsed.bytesReceived, "only the rest crossed the wire (REST)")
        }
    }

    /// A new version longer than the partial (MDTM tells it changed) and one shorter (libcurl
    /// stops at "offset beyond file size" before MDTM is compared): both restart from zero.
    @Test(arguments: [true, false]) func aChangedFileRestartsFromZeroInsteadOfSplicing(longer: Bool) async throws {
        try await withServer { server in
            let path = server.root + "/held-changing.bin"
            try randomBytes(4 * 1024 * 1024).write(to: URL(fileURLWithPath: path))
            let rec = Recorder()
            let session = TransferSession(configuration: ephemeralConfig(), delegate: rec)
            defer { session.invalidateAndCancel() }
            let first = session.downloadTask(with: server.url("held-changing.bin"))
            first.resume()
            try await waitUntil("300 KB of the first transfer") { first.countOfBytesReceived >= 300_000 }
            let box = Box<Data?>()
            first.cancel(byProducingResumeData: { box.set($0) })
            let resume = try #require(try await box.wait())
            try await rec.waitForCompletion()
            // A new version with another modification time (MDTM has one-second resolution).
            let parsed = try ResumeData(decoding: resume)
            let received = Int(parsed.bytesReceived)
            let replacement = randomBytes(longer ? received + 1024 * 1024 : received / 2)
            try replacement.write(to: URL(fileURLWithPath: path))
            let older = Date(timeIntervalSinceNow: -3600)
            try FileManager.default.setAttributes([.modificationDate: older], ofItemAtPath: path)
            let rec2 = Recorder()
            let session2 = TransferSession(configuration: ephemeralConfig(), delegate: rec2)
            defer { session2.invalidateAndCancel() }
            session2.downloadTask(withResumeData: resume).resume()
            try await rec2.waitForCompletion()
            #expect(rec2.error == nil, "\(String(describing: rec2.error))")
            let (downloaded, resumedAt) = rec2.state.withLock { ($0.downloaded, $0.resumedAt) }
            #expect(resumedAt.last == 0, "restarted from zero")
            #expect(downloaded.map(sha256) == sha256(replacement), "the new version whole, never spliced")
        }
    }

    @Test func uploadFromAFileStoresIt() async throws {
        try await withServer { server in
            let body = randomBytes(700_000)
            let source = NSTemporaryDirectory() + "tk-ftp-upload-\(UUID().uuidString).bin"
            try body.write(to: URL(fileURLWithPath: source))
            defer { try? FileManager.default.removeItem(atPath: source) }
            let session = TransferSession(configuration: ephemeralConfig())
            defer { session.invalidateAndCancel() }
            var request = TransferRequest(url: server.url("stored.bin"))
            request.httpMethod = "PUT"
            let done = Box<TransferError?>()
            session.uploadTask(with: request, fromFile: URL(fileURLWithPath: source)) { _, _, error in done.set(error) }.resume()
            let error = try await done.wait()
            #expect(error == nil, "\(String(describing: error))")
            let stored = FileManager.default.contents(atPath: server.root + "/stored.bin")
            #expect(stored.map(sha256) == sha256(body))
        }
    }
}
