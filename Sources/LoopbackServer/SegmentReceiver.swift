import Digest
import Foundation
import NIOCore
import NIOHTTP1
import TransferModel

/// What the server holds of one segmented upload (`PUT /segments/NAME`): the file as
/// assembled so far, which segments are stored, attempts per segment, and the most segment
/// requests it had in flight at once.
public struct SegmentUploadReport: Sendable, Equatable {
    public var total: Int64
    /// Start offsets of the stored segments.
    public var stored: Set<Int64>
    /// Requests seen per segment start offset (a retry counts again).
    public var attempts: [Int64: Int]
    /// Start offsets in the order their requests arrived.
    public var arrivals: [Int64]
    public var maxInFlight: Int
    /// SHA-256 of the assembled bytes (meaningful once every segment is stored).
    public var sha256: String
    public var bytes: [UInt8]
}

/// The server's table of segmented uploads, by name.
final class SegmentTable: Sendable {
    struct Upload {
        var total: Int64
        var bytes: [UInt8]
        var stored: Set<Int64> = []
        var attempts: [Int64: Int] = [:]
        var arrivals: [Int64] = []
        var inFlight = 0
        var maxInFlight = 0
    }

    let uploads = Locked<[String: Upload]>([:])

    /// A request for `start` arrived: its attempt number (1 for the first).
    func begin(_ name: String, start: Int64, total: Int64) -> Int {
        uploads.withLock { all in
            var u = all[name] ?? Upload(total: total, bytes: [UInt8](repeating: 0, count: Int(total)))
            u.attempts[start, default: 0] += 1
            u.arrivals.append(start)
            u.inFlight += 1
            u.maxInFlight = max(u.maxInFlight, u.inFlight)
            all[name] = u
            return u.attempts[start]!
        }
    }

    func end(_ name: String) { uploads.withLock { $0.inPlace(name) { $0.inFlight -= 1 } } }

    func write(_ name: String, at offset: Int64, _ bytes: UnsafeRawBufferPointer) {
        uploads.withLock { all in
            guard var u = all[name], offset >= 0, offset + Int64(bytes.count) <= u.total else { return }
            all[name] = nil  // uniquely referenced while written
            u.bytes.withUnsafeMutableBytes { dst in
                UnsafeMutableRawBufferPointer(rebasing: dst[Int(offset)..<(Int(offset) + bytes.count)]).copyMemory(from: bytes)
            }
            all[name] = u
        }
    }

    func markStored(_ name: String, start: Int64) { uploads.withLock { _ = $0[name]?.stored.insert(start) } }

    func report(_ name: String) -> SegmentUploadReport? {
        uploads.withLock { all in
            guard let u = all[name] else { return nil }
            return SegmentUploadReport(total: u.total, stored: u.stored, attempts: u.attempts, arrivals: u.arrivals,
                                       maxInFlight: u.maxInFlight, sha256: SHA256.hex(Data(u.bytes)), bytes: u.bytes)
        }
    }
}

/// One segment PUT: checks `Content-Range` and `Content-Digest`, writes the bytes at their
/// offset, and injects the faults the query asks for, on a segment's first attempt only:
/// `fail=S,…` answers 500 after the body, `reset=S` resets the connection halfway through the
/// body, `holdAt=S&holdGate=G` holds the response at gate G (so a test can kill the client
/// while the server has the segment's bytes). S is a segment's start offset.
final class SegmentReceiver {
    let name: String
    let start: Int64
    let length: Int64
    let total: Int64
    let expectedDigest: String?
    let attempt: Int
    private let table: SegmentTable
    private let failFirst: Bool
    private let resetFirst: Bool
    let holdGate: String?
    private var received: Int64 = 0
    private let hasher = SHA256.Hasher()
    private var ended = false
    /// Why the request is refused (a malformed range), decided at the head.
    private let refusal: String?

    init(name: String, head: HTTPRequestHead, query: [String: String], table: SegmentTable) {
        self.name = name
        self.table = table
        expectedDigest = head.headers.first(name: "Content-Digest")
        let range = Self.parseRange(head.headers.first(name: "Content-Range") ?? "")
        start = range?.start ?? 0
        length = range.map { $0.end - $0.start + 1 } ?? 0
        total = range?.total ?? 0
        refusal = range == nil ? "missing or malformed Content-Range" : nil
        attempt = range == nil ? 0 : table.begin(name, start: start, total: total)
        func offsets(_ key: String) -> Set<Int64> {
            Set((query[key] ?? "").split(separator: ",").compactMap { Int64($0) })
        }
        let first = attempt == 1
        failFirst = first && offsets("fail").contains(start)
        resetFirst = first && offsets("reset").contains(start)
        holdGate = first && offsets("holdAt").contains(start) ? query["holdGate"] : nil
    }

    /// `bytes START-END/TOTAL` with END < TOTAL (an empty file's `bytes */0` is not a segment
    /// this server stores).
    static func parseRange(_ value: String) -> (start: Int64, end: Int64, total: Int64)? {
        guard value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/")
        guard parts.count == 2, let total = Int64(parts[1]) else { return nil }
        let se = parts[0].split(separator: "-")
        guard se.count == 2, let s = Int64(se[0]), let e = Int64(se[1]), s >= 0, s <= e, e < total,
              total <= 1 << 30 else { return nil }
        return (s, e, total)
    }

    /// Feeds body bytes; false when the connection must be reset now (the `reset` fault).
    func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard refusal == nil else { return true }
        let room = Int(max(0, length - received))
        let take = UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, room)])
        hasher.update(take)
        table.write(name, at: start + received, take)
        received += Int64(bytes.count)
        return !(resetFirst && received >= length / 2)
    }

    /// The answer once the body is complete.
    func finish() -> ResponsePlan {
        endOnce()
        if let refusal { return .text(.badRequest, refusal + "\n") }
        guard received == length else { return .text(.badRequest, "body has \(received) bytes, Content-Range says \(length)\n") }
        let digest = SegmentLayout.contentDigest(sha256: hasher.finalize())
        guard expectedDigest == digest else { return .text(.badRequest, "Content-Digest does not match the body\n") }
        if failFirst { return .text(.internalServerError, "injected failure\n") }
        table.markStored(name, start: start)
        var plan = ResponsePlan.text(.created, "stored \(start)-\(start + length - 1)/\(total)\n")
        plan.headGate = holdGate
        return plan
    }

    /// The connection went away before the body ended.
    func abandon() { endOnce() }

    private func endOnce() {
        guard !ended else { return }
        ended = true
        if refusal == nil { table.end(name) }
    }
}
