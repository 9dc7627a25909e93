import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Cancel with resume data, continue, validate: never splice two versions.
@Suite(.serialized) struct ResumeTests {
    /// Cancels a download held at `gate` once the client has every byte the server sent before
    /// the gate (`received`, counted from the start of the file), and returns its resume data.
    /// Gates, not pacing: the transfer cannot finish or outrun the test on a loaded machine.
    private func cancelAtGate(_ task: TransferDownloadTask, _ server: LoopbackServer, _ gate: String,
                              received: Int64) async throws -> Data {
        do {
            try await server.waitForGate(gate)
        } catch {
            throw Timeout(what: "\(error); task \(task.taskIdentifier) state \(task.state), received "
                + "\(task.countOfBytesReceived) of \(received), status \(task.response?.statusCode ?? -1), "
                + "error \(String(describing: task.error))")
        }
        try await waitUntil("\(received) bytes at the client") { task.countOfBytesReceived >= received }
        #expect(task.countOfBytesReceived == received)
        #expect(task.isResumable, "the monitor offers d only for a task that says it is resumable")
        #expect(task.snapshot().isResumable)
        let box = Box<Data?>()
        task.cancel(byProducingResumeData: { box.set($0) })
        guard let data = try await box.wait() else {
            throw Timeout(what: "resume data (got nil; state \(task.state), status \(task.response?.statusCode ?? -1), "
                + "received \(task.countOfBytesReceived), resumable \(task.isResumable), error \(String(describing: task.error)))")
        }
        return data
    }

    /// A URL of file `name` that holds after `holdAfter` body bytes at a new gate.
    private func gated(_ server: LoopbackServer, _ name: String, holdAfter: Int) -> (String, String) {
        let gate = UUID().uuidString
        return ("\(server.httpBase)/files/\(name)?gate=\(gate)&holdAfter=\(holdAfter)", gate)
    }

    private func finish(_ session: TransferSession, _ resume: Data, rec: Recorder) async throws -> Data? {
        session.downloadTask(withResumeData: resume).resume()
        try await rec.waitForCompletion()
        return rec.state.withLock { $0.downloaded }
    }

    @Test func twentyCancelResumeCyclesAtRandomOffsetsAreByteExact() async throws {
        let server = try await TestServer.get()
        let size = 64 * 1024 * 1024
        server.setFile("cycles.bin", size: size, seed: 7)
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false })
        var rng = SystemRandomNumberGenerator()
        // Twenty random steps within the first 90 %: each response sends exactly its step and
        // holds at a gate, so every cancel lands at a known offset (the resume data's URL is
        // pointed at the next step's gate).
        let steps = (0..<20).map { _ in Int.random(in: 1...(size * 9 / 10 / 20), using: &rng) }
        let digest = Box<String>()
        let keepDigest: @Sendable (URL?, TransferResponse?, TransferError?) -> Void = { file, _, error in
            if error == nil, let file, let d = FileManager.default.contents(atPath: file.path) { digest.set(sha256(d)) }
        }
        var (link, gate) = gated(server, "cycles.bin", holdAfter: steps[0])
        var task = session.downloadTask(with: TransferRequest(url: url(link)), completionHandler: keepDigest)
        task.resume()
        var offset: Int64 = 0
        for (i, step) in steps.enumerated() {
            offset += Int64(step)
            var r = try ResumeData(decoding: try await cancelAtGate(task, server, gate, received: offset))
            #expect(r.bytesReceived == offset)
            if i + 1 < steps.count {
                (link, gate) = gated(server, "cycles.bin", holdAfter: steps[i + 1])
                r.url = link
            } else {
                r.url = "\(server.httpBase)/files/cycles.bin"
            }
            task = session.downloadTask(withResumeData: r.encoded(), completionHandler: keepDigest)
            task.resume()
        }
        #expect(try await digest.wait() == sha256(expectedBody(size, seed: 7)))
        session.finishTasksAndInvalidate()
    }

    @Test func resumedDownloadEndsWithTheRightBytes() async throws {
        let server = try await TestServer.get()
        let size = 8 * 1024 * 1024
        server.setFile("exact.bin", size: size, seed: 3)
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: rec)
        let (link, gate) = gated(server, "exact.bin", holdAfter: 3_000_000)
        let first = session.downloadTask(with: url(link))
        first.resume()
        let resume = try await cancelAtGate(first, server, gate, received: 3_000_000)
        server.openGate(gate)
        let resumed = Recorder()
        let second = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: resumed)
        // Same partial directory (ephemeral sessions share the user's private temp dir).
        let file = try await finish(second, resume, rec: resumed)
        #expect(file.map(sha256) == sha256(expectedBody(size, seed: 3)))
        #expect(resumed.state.withLock { $0.resumedAt } == [3_000_000])
        #expect(resumeCameFirst(resumed), "\(resumed.events)")
        session.finishTasksAndInvalidate()
        second.finishTasksAndInvalidate()
    }

    @Test func connectionResetYieldsResumeDataInTheErrorAndResumingCompletes() async throws {
        let server = try await TestServer.get()
        let size = 2_000_000
        server.setFile("reset.bin", size: size, seed: 5)
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false })
        let box = Box<TransferError?>()
        session.downloadTask(with: TransferRequest(url: url("\(server.httpBase)/files/reset.bin?resetAfter=700000"))) { _, _, e in
            box.set(e)
        }.resume()
        let error = try await box.wait()
        #expect(error?.code == .networkConnectionLost)
        var resume = try #require(error?.resumeData)
        // Each resumed response is reset 700 kB further on. An RST also discards what sat unread
        // in the client's socket buffer, so an attempt may gain less: allow many.
        for _ in 0..<30 {
            let done = Box<(URL?, TransferError?)>()
            session.downloadTask(withResumeData: resume) { f, _, e in
                done.set((f.flatMap { TransferSession.keep($0) }, e))
            }.resume()
            let (file, e) = try await done.wait()
            if let e {
                resume = try #require(e.resumeData)
                continue
            }
            let bytes = try Data(contentsOf: try #require(file))
            #expect(sha256(bytes) == sha256(expectedBody(size, seed: 5)))
            try? FileManager.default.removeItem(at: file!)
            session.finishTasksAndInvalidate()
            return
        }
        Issue.record("the download never completed")
    }

    @Test func changedETagRestartsFromZeroWithTheNewVersion() async throws {
        let server = try await TestServer.get()
        let size = 4_000_000
        server.setFile("changes.bin", size: size, seed: 1)
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false })
        let (link, gate) = gated(server, "changes.bin", holdAfter: 1_000_000)
        let first = session.downloadTask(with: url(link))
        first.resume()
        let resume = try await cancelAtGate(first, server, gate, received: 1_000_000)
        server.openGate(gate)
        server.changeFile("changes.bin", newSeed: 2)
        let rec = Recorder()
        let second = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: rec)
        let file = try await finish(second, resume, rec: rec)
        #expect(file.map(sha256) == sha256(expectedBody(size, seed: 2)))
        #expect(rec.state.withLock { $0.resumedAt } == [0])
        #expect(resumeCameFirst(rec), "\(rec.events)")
        session.finishTasksAndInvalidate()
        second.finishTasksAndInvalidate()
    }

    @Test func serverThatIgnoresRangeRestartsInTheSameResponse() async throws {
        try await restartCase(query: "ignoreRange=1", name: "ignore.bin", expectOffsets: [0])
    }

    @Test func wrongContentRangeRestartsAndNeverSplices() async throws {
        try await restartCase(query: "badRange=1", name: "liar.bin", expectOffsets: [0])
    }

    private func restartCase(query: String, name: String, expectOffsets: [Int64]) async throws {
        let server = try await TestServer.get()
        let size = 3_000_000
        server.setFile(name, size: size, seed: 9)
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false })
        // The first download honours ranges (no query) so it is resumable...
        let (link, gate) = gated(server, name, holdAfter: 1_000_000)
        let first = session.downloadTask(with: url(link))
        first.resume()
        var r = try ResumeData(decoding: try await cancelAtGate(first, server, gate, received: 1_000_000))
        // ...and the resume goes to the misbehaving variant of the same resource.
        r.url = "\(server.httpBase)/files/\(name)?\(query)"
        let rec = Recorder()
        let second = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: rec)
        let file = try await finish(second, r.encoded(), rec: rec)
        #expect(rec.error == nil)
        #expect(file.map(sha256) == sha256(expectedBody(size, seed: 9)), "the file is whole and never spliced")
        #expect(rec.state.withLock { $0.resumedAt }.first == 0)
        #expect(resumeCameFirst(rec), "\(rec.events)")
        #expect(rec.state.withLock { $0.metrics?.redirectCount } == 0, "a resume restart is not a redirect")
        session.finishTasksAndInvalidate()
        second.finishTasksAndInvalidate()
    }

    @Test func alreadyCompleteFileIsAcceptedOn416() async throws {
        let server = try await TestServer.get()
        let size = 500_000
        server.setFile("whole.bin", size: size, seed: 4)
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.allowsHTTP2 = false }, delegate: rec)
        // A partial file that already holds everything, and resume data saying so.
        let path = session.engine.partialDirectory + "/whole-\(UUID().uuidString).part"
        #expect(FileManager.default.createFile(atPath: path, contents: expectedBody(size, seed: 4), attributes: [.posixPermissions: 0o600]))
        let head = try await session.data(for: TransferRequest(url: url("\(server.httpBase)/files/whole.bin"), httpMethod: "HEAD")).1
        let r = ResumeData(url: "\(server.httpBase)/files/whole.bin", entityTag: head.value(forHTTPHeaderField: "ETag"),
                           lastModified: head.value(forHTTPHeaderField: "Last-Modified"), bytesReceived: Int64(size),
                           expectedTotal: Int64(size), partialFilePath: path, createdAt: Date(), sessionKindName: "ephemeral",
                           originalTaskIdentifier: 1)
        let file = try await finish(session, r.encoded(), rec: rec)
        #expect(rec.error == nil)
        #expect(file.map(sha256) == sha256(expectedBody(size, seed: 4)))
        #expect(rec.state.withLock { $0.resumedAt } == [Int64(size)])
        #expect(resumeCameFirst(rec), "\(rec.events)")
        session.finishTasksAndInvalidate()
    }

    @Test func badResumeDataIsRefusedWithATypedError() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        let dir = session.engine.partialDirectory
        let good = ResumeData(url: "\(server.httpBase)/files/x", entityTag: "\"v1\"", lastModified: nil, bytesReceived: 10,
                              partialFilePath: dir + "/missing.part", createdAt: Date(), sessionKindName: "ephemeral",
                              originalTaskIdentifier: 1).encoded()
        var forged = try ResumeData(decoding: good)
        forged.partialFilePath = "/etc/passwd"
        let cases: [(String, Data, String)] = [
            ("garbage", Data("hello".utf8), "not transferkit resume data"),
            ("truncated", good.prefix(good.count / 2), "truncated"),
            ("missing partial file", good, "no longer exists"),
            ("outside the state directory", forged.encoded(), "not directly inside"),
        ]
        for (name, data, words) in cases {
            let box = Box<TransferError?>()
            let task = session.downloadTask(withResumeData: data) { _, _, e in box.set(e) }
            task.resume()
            let e = try await box.wait()
            #expect(e?.code == .cannotDecodeResumeData, "\(name)")
            #expect(e?.message.lowercased().contains(words) == true, "\(name): \(e?.message ?? "nil")")
        }
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
        session.finishTasksAndInvalidate()
    }
}

/// Apple's order on a resumed download: didResumeAtOffset before any didWriteData.
func resumeCameFirst(_ rec: Recorder) -> Bool {
    rec.events.first { $0.hasPrefix("didResumeAtOffset") || $0 == "didWriteData" }?.hasPrefix("didResumeAtOffset") == true
}
