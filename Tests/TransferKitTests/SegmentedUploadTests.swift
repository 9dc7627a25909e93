import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// A file sent as Content-Range segments in parallel, reassembled by the loopback
/// server's `PUT /segments/NAME` route, which checks each segment's range and digest, counts
/// the segments in flight and injects faults on a segment's first attempt.
@Suite struct SegmentedUploadTests {
    static let segment: Int64 = 64 * 1024

    /// A file of `size` pattern bytes in a private directory.
    func makeFile(_ size: Int, seed: UInt8 = 3) throws -> (path: String, sha: String, cleanup: () -> Void) {
        let dir = NSTemporaryDirectory() + "tk-seg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let data = Data(LoopbackServer.body(size: size, seed: seed))
        try data.write(to: URL(fileURLWithPath: dir + "/source.bin"))
        return (dir + "/source.bin", sha256(data), { try? FileManager.default.removeItem(atPath: dir) })
    }

    func upload(_ file: String, to target: URL, maxInFlight: Int, maxAttempts: Int = 5, done: Set<Int> = [])
        async throws -> (TransferError?, [SegmentedUpload.Event], SegmentedUpload) {
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        var options = SegmentedUpload.Options(segmentSize: Self.segment, maxInFlight: maxInFlight)
        options.maxAttempts = maxAttempts
        options.backoffBase = 0  // the order is the scheduler's; no test waits for a clock
        let upload = try SegmentedUpload(session: session, url: target, file: file, options: options, done: done)
        let events = Locked<[SegmentedUpload.Event]>([])
        let result = Box<TransferError?>()
        upload.start(onEvent: { e in events.withLock { $0.append(e) } }) { result.set($0) }
        let error = try await result.wait()
        return (error, events.withLock { $0 }, upload)
    }

    @Test func theServerReassemblesTheFileWithNeverMoreThanNInFlight() async throws {
        let server = try await TestServer.get()
        let file = try makeFile(9 * Int(Self.segment) + 1234)
        defer { file.cleanup() }
        let name = "whole-\(UUID().uuidString.prefix(8))"
        let (error, events, upload) = try await upload(file.path, to: url("\(server.httpBase)/segments/\(name)"), maxInFlight: 3)
        #expect(error == nil)
        let report = try #require(server.segmentUpload(name))
        #expect(report.sha256 == file.sha)
        #expect(report.stored.count == 10)
        #expect(report.maxInFlight >= 1 && report.maxInFlight <= 3)
        #expect(report.attempts.values.allSatisfy { $0 == 1 })
        #expect(events.filter { if case .stored = $0 { true } else { false } }.count == 10)
        #expect(upload.bytesSent == 9 * Self.segment + 1234)
        #expect(upload.states.allSatisfy { $0 == .done })
    }

    @Test func aSegmentAnswered500IsRetriedAfterTheOnesQueuedBehindIt() async throws {
        let server = try await TestServer.get()
        let file = try makeFile(4 * Int(Self.segment))
        defer { file.cleanup() }
        let name = "fail-\(UUID().uuidString.prefix(8))"
        let target = url("\(server.httpBase)/segments/\(name)?fail=\(Self.segment)")
        let (error, events, _) = try await upload(file.path, to: target, maxInFlight: 1)
        #expect(error == nil)
        let report = try #require(server.segmentUpload(name))
        #expect(report.sha256 == file.sha)
        let s = Self.segment
        #expect(report.arrivals == [0, s, 2 * s, 3 * s, s])
        #expect(events.contains(.failed(segment: 1, attempt: 1, reason: "HTTP 500")))
    }

    @Test func aConnectionResetInTheMiddleOfASegmentIsRecovered() async throws {
        let server = try await TestServer.get()
        let file = try makeFile(3 * Int(Self.segment))
        defer { file.cleanup() }
        let name = "reset-\(UUID().uuidString.prefix(8))"
        // The first segment, on a fresh connection: libcurl itself resends a request whose
        // reused connection died before an answer, so a reset there would not reach us.
        let target = url("\(server.httpBase)/segments/\(name)?reset=0")
        let (error, events, upload) = try await upload(file.path, to: target, maxInFlight: 1)
        #expect(error == nil)
        let report = try #require(server.segmentUpload(name))
        #expect(report.sha256 == file.sha)
        #expect(report.attempts[0] == 2)
        #expect(upload.attempts == [2, 1, 1])
        #expect(events.contains { if case .failed(segment: 0, attempt: 1, _) = $0 { true } else { false } })
    }

    @Test func aSegmentThatKeepsFailingEndsTheUploadNamingIt() async throws {
        let server = try await TestServer.get()
        let file = try makeFile(2 * Int(Self.segment))
        defer { file.cleanup() }
        let name = "exhaust-\(UUID().uuidString.prefix(8))"
        let target = url("\(server.httpBase)/segments/\(name)?fail=0")
        let (error, _, upload) = try await upload(file.path, to: target, maxInFlight: 1, maxAttempts: 1)
        let e = try #require(error)
        #expect(e.message.contains("segment 1 of 2") && e.message.contains("bytes 0-65535/131072"))
        #expect(upload.states == [.failed, .waiting])  // one at a time: the second never started
    }

    @Test func segmentsAlreadyStoredAreNotSentAgain() async throws {
        let server = try await TestServer.get()
        let file = try makeFile(4 * Int(Self.segment))
        defer { file.cleanup() }
        let name = "rerun-\(UUID().uuidString.prefix(8))"
        let target = url("\(server.httpBase)/segments/\(name)")
        let (error, _, _) = try await upload(file.path, to: target, maxInFlight: 2, done: [0, 3])
        #expect(error == nil)
        let report = try #require(server.segmentUpload(name))
        #expect(Set(report.arrivals) == [Self.segment, 2 * Self.segment])
    }

    @Test func cancelStopsTheSegmentsInFlightAndEndsTheUpload() async throws {
        let server = try await TestServer.get()
        let file = try makeFile(3 * Int(Self.segment))
        defer { file.cleanup() }
        let gate = UUID().uuidString
        let name = "cancel-\(UUID().uuidString.prefix(8))"
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let upload = try SegmentedUpload(session: session, url: url("\(server.httpBase)/segments/\(name)?holdAt=\(Self.segment)&holdGate=\(gate)"),
                                         file: file.path, options: .init(segmentSize: Self.segment, maxInFlight: 1))
        let result = Box<TransferError?>()
        upload.start { result.set($0) }
        try await server.waitForGate(gate)  // segment 2's answer is held: it is in flight
        upload.cancel()
        let error = try #require(try await result.wait())
        #expect(error.code == .cancelled)
        // Segment 2 was cut off (to be retried, but the upload is over); 3 never started.
        #expect(upload.states == [.done, .retrying, .waiting])
        server.openGate(gate)
        #expect(try #require(server.segmentUpload(name)).arrivals == [0, Self.segment])
    }

    @Test func aMissingFileIsAClearErrorBeforeAnyRequest() async throws {
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        #expect(throws: TransferError.self) {
            _ = try SegmentedUpload(session: session, url: url("http://127.0.0.1:9/segments/x"), file: "/nonexistent/file",
                                    options: .init(segmentSize: 1024, maxInFlight: 1))
        }
    }

    /// Decisions 106 and 107: an empty file (it would be sent as `bytes */0`, which servers
    /// refuse) and a file of more than `SegmentLayout.maxSegments` segments (a sparse file:
    /// no bytes written) are refused when the upload is made, before any request.
    @Test func anEmptyFileAndTooManySegmentsAreRefusedUpFront() throws {
        let empty = try makeFile(0)
        defer { empty.cleanup() }
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.finishTasksAndInvalidate() }
        let url = URL(string: "http://127.0.0.1:1/segments/none")!
        let options = SegmentedUpload.Options(segmentSize: Self.segment, maxInFlight: 2)
        #expect(throws: TransferError.self) { try SegmentedUpload(session: session, url: url, file: empty.path, options: options) }
        let sparse = empty.path + ".sparse"
        let fd = creat(sparse, 0o600)
        #expect(fd >= 0 && ftruncate(fd, off_t(Self.segment) * off_t(SegmentLayout.maxSegments) + 1) == 0)
        close(fd)
        do {
            _ = try SegmentedUpload(session: session, url: url, file: sparse, options: options)
            Issue.record("a file of \(SegmentLayout.maxSegments + 1) segments was accepted")
        } catch {
            #expect(error.message.contains("more than 100000"), "\(error.message)")
        }
        #expect(throws: Never.self) { _ = try SegmentedUpload(session: session, url: url, file: sparse, options: .init(segmentSize: 2 * Self.segment, maxInFlight: 2)) }
    }
}
