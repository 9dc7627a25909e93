import Foundation

/// The order of a segmented upload: which segment goes next,
/// how many are in flight, what a failure does. Pure: the caller sends the segments and says
/// how each one ended; time is a parameter, so tests need no clock.
///
/// - At most `maxInFlight` segments are in flight, never more.
/// - Segments start in file order. A failed one goes to the back of the queue, behind every
///   segment waiting then, and may not start again before its back-off has passed
///   (`backoffBase` doubling per failure, at most `backoffCap`). Segments behind it that are
///   ready go first: one slow or failing segment does not hold up the rest.
/// - A segment that failed `maxAttempts` times, or failed in a way a retry cannot mend, ends
///   the upload (`exhausted`); segments in flight still finish, no new one starts.
public struct SegmentScheduler: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case waiting
        case inFlight
        case done
        /// Failed at least once and waiting for its next attempt.
        case retrying
        /// Failed `maxAttempts` times: the upload ends.
        case failed
    }

    public let count: Int
    public let maxInFlight: Int
    public let maxAttempts: Int
    public let backoffBase: Double
    public let backoffCap: Double
    public private(set) var states: [State]
    /// Attempts started per segment.
    public private(set) var attempts: [Int]
    /// Waiting segments in the order they go, each with the earliest time it may start.
    private var queue: [(segment: Int, notBefore: Double)] = []
    public private(set) var inFlight = 0
    /// The segment that failed `maxAttempts` times, if one did.
    public private(set) var exhausted: Int?

    /// `done`: segments already stored (an earlier run's record); they are never sent.
    public init(count: Int, maxInFlight: Int, maxAttempts: Int = 5, backoffBase: Double = 0.25,
                backoffCap: Double = 8, done: Set<Int> = []) {
        self.count = count
        self.maxInFlight = max(1, maxInFlight)
        self.maxAttempts = max(1, maxAttempts)
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
        states = (0..<count).map { done.contains($0) ? .done : .waiting }
        attempts = Array(repeating: 0, count: count)
        queue = (0..<count).filter { !done.contains($0) }.map { ($0, 0) }
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.states == b.states && a.attempts == b.attempts && a.inFlight == b.inFlight && a.exhausted == b.exhausted
            && a.queue.map(\.segment) == b.queue.map(\.segment)
    }

    /// Nothing in flight and nothing more will start: every segment stored, or one exhausted.
    public var isFinished: Bool { inFlight == 0 && (exhausted != nil || queue.isEmpty) }
    public var isComplete: Bool { states.allSatisfy { $0 == .done } }
    public var doneSegments: Set<Int> { Set(states.indices.filter { states[$0] == .done }) }

    /// The next segment to send at `now`, marked in flight; nil when the limit is reached,
    /// nothing waits, the upload is over, or every waiting segment is still backing off.
    public mutating func next(now: Double) -> Int? {
        guard exhausted == nil, inFlight < maxInFlight,
              let i = queue.firstIndex(where: { $0.notBefore <= now }) else { return nil }
        let segment = queue.remove(at: i).segment
        states[segment] = .inFlight
        attempts[segment] += 1
        inFlight += 1
        return segment
    }

    /// When the first segment that is backing off may start (nil: none is), so the caller
    /// knows when to ask again without polling.
    public func nextWake(now: Double) -> Double? {
        guard exhausted == nil, inFlight < maxInFlight, !queue.isEmpty,
              !queue.contains(where: { $0.notBefore <= now }) else { return nil }
        return queue.map(\.notBefore).min()
    }

    /// Records how an in-flight segment ended. `retryable: false` (a 4xx answer: the server
    /// refused this request, and the same request would be refused again) ends the upload
    /// at once instead of trying again.
    public mutating func finished(_ segment: Int, ok: Bool, retryable: Bool = true, now: Double) {
        guard states.indices.contains(segment), states[segment] == .inFlight else { return }
        inFlight -= 1
        if ok {
            states[segment] = .done
            return
        }
        if !retryable || attempts[segment] >= maxAttempts {
            states[segment] = .failed
            if exhausted == nil { exhausted = segment }
            return
        }
        states[segment] = .retrying
        queue.append((segment, now + backoff(afterFailures: attempts[segment])))
    }

    /// The pause before attempt `failures + 1`.
    public func backoff(afterFailures failures: Int) -> Double {
        min(backoffCap, backoffBase * pow(2, Double(max(0, failures - 1))))
    }
}

/// The byte ranges of a file cut into segments, and the headers each one's PUT carries.
public struct SegmentLayout: Sendable, Equatable {
    public let totalSize: Int64
    public let segmentSize: Int64

    public init(totalSize: Int64, segmentSize: Int64) {
        self.totalSize = max(0, totalSize)
        self.segmentSize = max(1, segmentSize)
    }

    /// The most segments one upload may have (decision 106): the scheduler keeps a few words per
    /// segment, and a map of millions says nothing; a larger file needs larger segments.
    public static let maxSegments = 100_000

    /// An empty file is one empty segment, so it is still sent (and created) once. Computed
    /// without `totalSize + segmentSize - 1`, which overflows near `Int64.max` (a sparse file).
    public var count: Int {
        guard totalSize > 0 else { return 1 }
        let (q, r) = totalSize.quotientAndRemainder(dividingBy: segmentSize)
        return Int(q + (r == 0 ? 0 : 1))
    }

    /// Whether the file fits in `maxSegments` segments of this size.
    public var fitsSegmentLimit: Bool { count <= Self.maxSegments }

    /// The smallest segment size that cuts `totalSize` bytes into at most `maxSegments` segments.
    public static func smallestSegmentSize(for totalSize: Int64, maxSegments: Int = maxSegments) -> Int64 {
        let (q, r) = max(0, totalSize).quotientAndRemainder(dividingBy: Int64(max(1, maxSegments)))
        return max(1, q + (r == 0 ? 0 : 1))
    }

    /// The first byte of `segment`; past the end (`totalSize`) for a segment beyond the last,
    /// never an overflow.
    public func offset(_ segment: Int) -> Int64 {
        let (o, overflow) = Int64(max(0, segment)).multipliedReportingOverflow(by: segmentSize)
        return overflow ? totalSize : min(o, totalSize)
    }

    public func length(_ segment: Int) -> Int64 {
        guard segment >= 0, segment < count else { return 0 }
        return min(segmentSize, totalSize - offset(segment))
    }

    /// `bytes START-END/TOTAL` (RFC 9110 14.4); an empty file has no byte to name, so it is
    /// `bytes */0`.
    public func contentRange(_ segment: Int) -> String {
        let len = length(segment)
        guard len > 0 else { return "bytes */\(totalSize)" }
        let start = offset(segment)
        return "bytes \(start)-\(start + len - 1)/\(totalSize)"
    }

    /// `sha-256=:BASE64:` (RFC 9530) of the segment's bytes.
    public static func contentDigest(sha256 digest: [UInt8]) -> String {
        "sha-256=:" + Data(digest).base64EncodedString() + ":"
    }
}

/// aria2's piece map for a segmented upload: one cell per segment, or per group of segments
/// when they do not fit (a group shows its most pressing state): `#` stored, `>` in flight,
/// `.` waiting, `!` failed and waiting to be retried, `x` failed for good.
public enum SegmentMap {
    public static func render(_ states: [SegmentScheduler.State], width: Int) -> String {
        guard !states.isEmpty, width > 0 else { return "" }
        let cells = min(width, states.count)
        var out = ""
        out.reserveCapacity(cells)
        for c in 0..<cells {
            let from = c * states.count / cells, to = (c + 1) * states.count / cells
            let group = states[from..<max(from + 1, to)]
            if group.contains(.failed) { out.append("x") }
            else if group.contains(.retrying) { out.append("!") }
            else if group.contains(.inFlight) { out.append(">") }
            else if group.contains(.waiting) { out.append(".") }
            else { out.append("#") }
        }
        return out
    }
}
