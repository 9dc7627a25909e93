import Foundation
import TransferKit
import TransferTopUI

/// `transfertop -T FILE --segments N [--segment-size SIZE] URL`: one file sent as
/// segments in parallel by `SegmentedUpload`, with a line per stored or failed segment that
/// carries the segment map (`#` stored, `>` in flight, `.` waiting, `!` to be retried, as
/// aria2's piece map), the record of stored segments for a rerun (`SegmentLedger`), and
/// line mode's exit statuses: 0 when every segment is stored, 1 otherwise, 130 after Ctrl-C.
package enum SegmentedRun {
    static let mapWidth = 40

    package static func run(_ given: RunPlan, options o: Options) async -> Int32 {
        let plan = withConnections(given, segments: o.segments ?? 1)
        guard let file = o.upload, let sessionPlan = plan.sessions.first, let task = sessionPlan.tasks.first else { return 2 }
        let url = task.url
        if let warning = LineMode.insecureWarning(plan) { Output.shared.error(warning) }  // DECISIONS 110
        let segmentSize = o.segmentSize ?? SegmentedUploadOptions.defaultSegmentSize
        guard let (ledger, done) = openLedger(url: url, file: file, segmentSize: segmentSize) else { return 1 }

        let invalidated = InvalidationSignal()
        let session = TransferSession(configuration: sessionPlan.configuration, delegate: invalidated, name: sessionPlan.name)
        let status = await send(session, file: file, url: url, segmentSize: segmentSize, done: done, ledger: ledger, options: o)
        // The process exits next: the session's transfer thread must be gone first (its
        // handles, connections and TLS state are torn down by invalidation).
        session.finishTasksAndInvalidate()
        await invalidated.wait()
        return status
    }

    private static func send(_ session: TransferSession, file: String, url: URL, segmentSize: Int64, done: Set<Int>,
                             ledger: SegmentLedger?, options o: Options) async -> Int32 {
        let out = Output.shared
        let shownURL = Redaction.redactURL(url.absoluteString)
        let shownFile = SafeQuote.quote(file)
        let upload: SegmentedUpload
        do {
            upload = try SegmentedUpload(session: session, url: url, file: file,
                                         options: .init(segmentSize: segmentSize, maxInFlight: o.segments ?? 1), done: done)
        } catch {
            out.error("transfertop: \(error.message)")
            ledger?.release()
            return 1
        }
        let layout = upload.layout
        let count = layout.count
        let done = done.filter { $0 >= 0 && $0 < count }
        out.line("uploading '\(shownFile)' (\(Units.bytes(layout.totalSize))) to \(shownURL): "
                 + "\(Units.count(count, "segment")) of \(Units.bytes(segmentSize)), \(o.segments ?? 1) at a time"
                 + (done.isEmpty ? "" : "; \(done.count) stored by an earlier run"))

        let startedAt = Date()
        let interrupted = Locked(false)
        let retried = Locked(Set<Int>())
        let signals = SignalWatcher { _ in
            interrupted.withLock { $0 = true }
            out.line("transfertop: interrupted; cancelling the segments in flight")
            upload.cancel()
        }
        let outcome: TransferError? = await withCheckedContinuation { c in
            upload.start(onEvent: { event in
                switch event {
                case .started:
                    break
                case .stored(let i):
                    ledger?.save(upload.doneSegments)
                    out.line(line(upload, "segment \(i + 1)/\(count) stored"))
                case .failed(let i, let attempt, let reason):
                    retried.withLock { _ = $0.insert(i) }
                    out.line(line(upload, "segment \(i + 1)/\(count) (\(layout.contentRange(i))) failed, attempt \(attempt): "
                                  + Redaction.redactText(reason)))
                }
            }) { c.resume(returning: $0) }
        }
        signals.cancel()
        let elapsed = Date().timeIntervalSince(startedAt)
        if outcome == nil {
            ledger?.remove()
            let sent = layout.totalSize - done.reduce(0) { $0 + layout.length($1) }
            out.line("uploaded '\(shownFile)' to \(shownURL): \(Units.count(count, "segment")), \(Units.bytes(sent)) sent in "
                     + String(format: "%.1f s", elapsed) + " (\(Units.speed(elapsed > 0 ? Double(sent) / elapsed : 0)))"
                     + (retried.withLock { $0.isEmpty } ? "" : ", \(retried.withLock { $0.count }) segment(s) retried"))
            return 0
        }
        let stored = upload.doneSegments.count
        ledger?.release()
        if interrupted.withLock({ $0 }) {
            out.line("interrupted: \(stored) of \(count) segments stored; run the same command again to send the rest")
            return 130
        }
        out.error("transfertop: \(outcome!.message); \(stored) of \(count) segments stored"
                  + (ledger == nil ? "" : "; run the same command again to send the rest"))
        return 1
    }

    /// Decision 108: the session may open as many connections to the host as segments are in
    /// flight (`--max-connections-per-host`, default 6, would hold `--segments 8` to 6).
    package static func withConnections(_ given: RunPlan, segments: Int) -> RunPlan {
        var plan = given
        for i in plan.sessions.indices {
            plan.sessions[i].maxConnectionsPerHost = max(plan.sessions[i].maxConnectionsPerHost, segments)
        }
        return plan
    }

    /// The record of this upload's stored segments (locked) and what it holds; nil (after a
    /// message) when another run holds it or it cannot be kept.
    package static func openLedger(url: URL, file: String, segmentSize: Int64) -> (SegmentLedger?, Set<Int>)? {
        let out = Output.shared
        let ledger: SegmentLedger?
        do {
            ledger = try SegmentLedger.open(url: url, file: file, segmentSize: segmentSize)
        } catch {
            switch error {
            case .busy:
                out.error("transfertop: another transfertop is sending '\(SafeQuote.quote(file))' to "
                          + "\(Redaction.redactURL(url.absoluteString)) in segments; not starting a second")
            case .unavailable(let why): out.error("transfertop: \(why)")
            }
            return nil
        }
        let (done, note) = ledger?.load(shownFile: SafeQuote.quote(file)) ?? ([], nil)
        if let note { out.line("note: \(note)") }
        return (ledger, done)
    }

    /// `[##>....]  37%  segment 3/8 stored`: the map and the share stored, then what happened.
    static func line(_ upload: SegmentedUpload, _ what: String) -> String {
        let states = upload.states
        let stored = states.indices.filter { states[$0] == .done }.reduce(Int64(0)) { $0 + upload.layout.length($1) }
        let percent = upload.layout.totalSize > 0 ? Int(stored * 100 / upload.layout.totalSize) : 100
        return "[\(SegmentMap.render(states, width: mapWidth))] \(String(repeating: " ", count: max(0, 3 - String(percent).count)))\(percent)%  \(what)"
    }
}

/// Resumes whoever waits once the session has become invalid (its transfer thread stopped).
final class InvalidationSignal: TransferSessionDelegate, @unchecked Sendable {
    // @unchecked: `state` is behind a lock.
    private let state = Locked<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func session(_ session: TransferSession, didBecomeInvalidWithError error: TransferError?) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.done = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.done { return true }
                s.waiter = c
                return false
            }
            if now { c.resume() }
        }
    }
}
