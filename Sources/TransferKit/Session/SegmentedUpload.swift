import Digest
import Foundation

/// A large file sent as segments in parallel: each segment is
/// `PUT url` with `Content-Range: bytes START-END/TOTAL`, its `Content-Length` and a
/// `Content-Digest: sha-256=:…:` of its bytes, streamed from the file with `pread` (no copy of a
/// segment in memory). At most `maxInFlight` segments are in flight; a segment answered other
/// than 2xx, or cut off, goes to the back of the queue and is retried after a back-off, up to
/// `maxAttempts` times (`SegmentScheduler` decides; this class only sends). Segments in `done`
/// (an earlier run's record) are not sent again.
///
/// Each segment is an ordinary upload task of `session`, so it has metrics, shows in the
/// session's tasks and honours its configuration (headers, time-outs, trust).
public final class SegmentedUpload: @unchecked Sendable {
    // @unchecked: the scheduler and the tasks are behind `state` (read from any thread, also
    // from the event callbacks); the rest is touched only on `queue`.
    public struct Options: Sendable, Equatable {
        public var segmentSize: Int64
        public var maxInFlight: Int
        public var maxAttempts = 5
        /// The first retry's pause, doubling per failure up to `backoffCap` (seconds).
        public var backoffBase = 0.25
        public var backoffCap = 8.0

        public init(segmentSize: Int64, maxInFlight: Int) {
            self.segmentSize = segmentSize
            self.maxInFlight = maxInFlight
        }
    }

    public enum Event: Sendable, Equatable {
        case started(segment: Int, attempt: Int)
        case stored(segment: Int)
        case failed(segment: Int, attempt: Int, reason: String)
    }

    public let session: TransferSession
    public let url: URL
    public let file: String
    public let options: Options
    public let layout: SegmentLayout
    private let queue = DispatchQueue(label: "tk.segmented-upload")
    private struct State {
        var scheduler: SegmentScheduler
        var tasks: [Int: TransferUploadTask] = [:]
    }
    private let state: Locked<State>
    private var onEvent: (@Sendable (Event) -> Void)?
    private var startTask: @Sendable (TransferUploadTask) -> Void = { $0.resume() }
    private var completion: (@Sendable (TransferError?) -> Void)?
    private var cancelled = false
    private var wakeScheduled = false
    private let started = Monotonic.now()
    /// The file as it was when the upload began (decision 107: compared again at the end).
    private let identity: SourceIdentity
    /// Why the upload cannot succeed, whatever a retry does (a 501 answer).
    private var finalReason: String?

    /// Nil with an error when the file cannot be read (its size is taken here: a file that
    /// changes size while it is sent fails the segment that finds out).
    public init(session: TransferSession, url: URL, file: String, options: Options, done: Set<Int> = []) throws(TransferError) {
        var st = stat()
        guard stat(file, &st) == 0 else {
            throw TransferError(.cannotOpenFile, "cannot read \(file): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw TransferError(.cannotOpenFile, "\(file) is not a regular file") }
        self.session = session
        self.url = url
        self.file = file
        self.options = options
        let layout = SegmentLayout(totalSize: Int64(st.st_size), segmentSize: options.segmentSize)
        // Decision 107: an empty file has no byte range to name (`bytes */0` is refused by
        // servers); it is one plain PUT, not a segmented upload.
        guard layout.totalSize > 0 else {
            throw TransferError(.cannotOpenFile, "\(file) is empty: there is nothing to send in segments (send it without segments, as one PUT)")
        }
        // Decision 106: a bounded segment count (the scheduler keeps state per segment).
        guard layout.fitsSegmentLimit else {
            throw TransferError(.cannotOpenFile, "\(file) would be \(layout.count) segments, more than \(SegmentLayout.maxSegments); "
                                + "use segments of at least \(SegmentLayout.smallestSegmentSize(for: layout.totalSize)) bytes")
        }
        self.layout = layout
        identity = SourceIdentity(st)
        state = Locked(State(scheduler: SegmentScheduler(
            count: layout.count, maxInFlight: options.maxInFlight, maxAttempts: options.maxAttempts,
            backoffBase: options.backoffBase, backoffCap: options.backoffCap, done: done.filter { $0 >= 0 && $0 < layout.count })))
    }

    /// Starts sending. `onEvent` and `completion` run on the upload's own serial queue;
    /// `completion` gets nil when every segment is stored. `startTask` starts each segment's
    /// task (default: `resume()`; an owner that tracks tasks, such as the CLI's monitor, adopts
    /// and resumes it).
    public func start(startTask: @escaping @Sendable (TransferUploadTask) -> Void = { $0.resume() },
                      onEvent: @escaping @Sendable (Event) -> Void = { _ in },
                      completion: @escaping @Sendable (TransferError?) -> Void) {
        queue.async {
            self.startTask = startTask
            self.onEvent = onEvent
            self.completion = completion
            self.pump()
        }
    }

    /// Cancels the segments in flight and ends the upload with `.cancelled`.
    public func cancel() {
        queue.async {
            guard !self.cancelled else { return }
            self.cancelled = true
            for task in self.state.withLock({ Array($0.tasks.values) }) { task.cancel() }
            self.finishIfDone()
        }
    }

    /// Every segment's state, for a segment map (from any thread, the callbacks included).
    public var states: [SegmentScheduler.State] { state.withLock { $0.scheduler.states } }

    public var doneSegments: Set<Int> { state.withLock { $0.scheduler.doneSegments } }

    /// Bytes stored plus bytes of the segments in flight sent so far.
    public var bytesSent: Int64 {
        let (states, tasks) = state.withLock { ($0.scheduler.states, Array($0.tasks.values)) }
        var n: Int64 = 0
        for (i, s) in states.enumerated() where s == .done { n += layout.length(i) }
        for task in tasks { n += task.countOfBytesSent }
        return n
    }

    /// Attempts per segment so far.
    public var attempts: [Int] { state.withLock { $0.scheduler.attempts } }

    // MARK: on `queue`

    private var now: Double { Double(Monotonic.now() - started) / 1e9 }

    private func pump() {
        guard !cancelled else {
            finishIfDone()  // the last cancelled segment ends the upload
            return
        }
        while let segment = state.withLock({ $0.scheduler.next(now: now) }) { send(segment) }
        if let wake = state.withLock({ $0.scheduler.nextWake(now: now) }), !wakeScheduled {
            wakeScheduled = true
            queue.asyncAfter(deadline: .now() + max(0, wake - now)) {
                self.wakeScheduled = false
                self.pump()
            }
        }
        finishIfDone()
    }

    private func send(_ segment: Int) {
        let attempt = attempts[segment]
        let offset = layout.offset(segment), length = layout.length(segment)
        let digest: [UInt8]
        switch Self.digest(file, offset: offset, length: length) {
        case .success(let d): digest = d
        case .failure(let e):
            state.withLock { $0.scheduler.finished(segment, ok: false, retryable: false, now: now) }
            onEvent?(.failed(segment: segment, attempt: attempt, reason: e.message))
            return
        }
        var request = TransferRequest(url: url, httpMethod: "PUT")
        request.setValue(layout.contentRange(segment), forHTTPHeaderField: "Content-Range")
        request.setValue(SegmentLayout.contentDigest(sha256: digest), forHTTPHeaderField: "Content-Digest")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let body: [MultipartLayout.Segment] = length > 0 ? [.fileRange(path: file, offset: offset, length: length)] : []
        let task = session.uploadTask(with: request, segments: body) { _, response, error in
            self.queue.async { self.segmentEnded(segment, attempt: attempt, response: response, error: error) }
        }
        state.withLock { $0.tasks[segment] = task }
        task.taskDescription = "segment \(segment + 1)/\(layout.count)"
        onEvent?(.started(segment: segment, attempt: attempt))
        startTask(task)
    }

    private func segmentEnded(_ segment: Int, attempt: Int, response: TransferResponse?, error: TransferError?) {
        let status = response?.statusCode ?? 0
        let ok = error == nil && (200..<300).contains(status)
        let retryable = error != nil || Self.isRetryable(status: status)
        if error == nil, status == 501, finalReason == nil {
            finalReason = "the server does not accept ranged PUTs (HTTP 501 Not Implemented to a PUT with Content-Range)"
        }
        let now = now
        state.withLock {
            $0.tasks[segment] = nil
            $0.scheduler.finished(segment, ok: ok, retryable: retryable, now: now)
        }
        if ok {
            onEvent?(.stored(segment: segment))
        } else if !cancelled {
            let reason = error.map { $0.message } ?? "HTTP \(status)"
            onEvent?(.failed(segment: segment, attempt: attempt, reason: reason))
        }
        pump()
    }

    private func finishIfDone() {
        guard let completion else { return }
        let (finished, idle, exhausted, attempts) = state.withLock {
            ($0.scheduler.isFinished, $0.tasks.isEmpty, $0.scheduler.exhausted, $0.scheduler.attempts)
        }
        if cancelled {
            guard idle else { return }
            self.completion = nil
            completion(TransferError(.cancelled, "cancelled"))
            return
        }
        guard finished, idle else { return }
        self.completion = nil
        if let failed = exhausted, let finalReason {
            completion(TransferError(.badServerResponse, "segment \(failed + 1) of \(layout.count) (\(layout.contentRange(failed))): \(finalReason)"))
        } else if let failed = exhausted {
            completion(TransferError(.badServerResponse,
                                     "segment \(failed + 1) of \(layout.count) (\(layout.contentRange(failed))) failed \(attempts[failed]) times"))
        } else if let changed = fileChanged() {
            completion(TransferError(.cannotOpenFile, changed))
        } else {
            completion(nil)
        }
    }

    /// Whether a segment answered `status` may succeed when sent again: server errors, 408
    /// and 429 (as curl's `--retry` and aria2 treat them); other 4xx answers refuse the request
    /// itself (wrong digest, range, permission, size).
    /// 501 is final (decision 107): nginx and others answer it to a PUT with Content-Range.
    static func isRetryable(status: Int) -> Bool { (status >= 500 && status != 501) || status == 408 || status == 429 }

    /// Why the stored segments may not be the file any more: it changed (size, modification
    /// or change time, or another file at the path) while it was sent. Nil when it is as it was.
    private func fileChanged() -> String? {
        guard let now = SourceIdentity(path: file) else { return "\(file) is gone: it was removed while it was sent" }
        return identity.change(to: now).map {
            "\(file) changed while it was sent (\($0)); the stored segments may mix old and new bytes"
        }
    }

    /// SHA-256 of `length` bytes of `file` from `offset`, read in 1 MiB pieces.
    static func digest(_ file: String, offset: Int64, length: Int64) -> Result<[UInt8], TransferError> {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(TransferError(.cannotOpenFile, "cannot read \(file): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        let hasher = SHA256.Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var at = offset, left = length
        while left > 0 {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(min(left, Int64($0.count))), off_t(at)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                return .failure(TransferError(.cannotOpenFile, n == 0 ? "\(file) got shorter while it was sent" : "cannot read \(file): \(String(cString: strerror(errno)))"))
            }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            at += Int64(n)
            left -= Int64(n)
        }
        return .success(hasher.finalize())
    }
}
