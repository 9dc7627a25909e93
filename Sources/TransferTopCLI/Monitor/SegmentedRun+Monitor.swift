import Foundation
import TransferKit
import TransferTopRun
import TransferTopUI

extension SegmentedRun {
    /// The segmented upload in the monitor: one session whose tasks are the segments (each
    /// adopted by the run, so its state, progress, metrics and keys are the monitor's own), and
    /// the segment map in the session row and in the detail pane. Quitting early cancels the
    /// segments in flight; the record keeps what was stored for a rerun.
    static func runInMonitor(_ plan: RunPlan, options o: Options, environment: [String: String]) async -> Int32 {
        guard let file = o.upload, let sessionPlan = plan.sessions.first, let task = sessionPlan.tasks.first else { return 2 }
        let url = task.url
        let segmentSize = o.segmentSize ?? SegmentedUploadOptions.defaultSegmentSize
        guard let (ledger, done) = openLedger(url: url, file: file, segmentSize: segmentSize) else { return 1 }
        var empty = withConnections(plan, segments: o.segments ?? 1)
        empty.sessions[0].tasks = []  // the segments are the session's tasks
        let runner = Runner(plan: empty, store: nil)
        let outcome = Locked<TransferError??>(nil)
        let upload = Locked<SegmentedUpload?>(nil)
        runner.afterStart {
            guard let session = runner.sessions.first else { return }
            let u: SegmentedUpload
            do throws(TransferError) {
                u = try SegmentedUpload(session: session, url: url, file: file,
                                        options: .init(segmentSize: segmentSize, maxInFlight: o.segments ?? 1), done: done)
            } catch {
                outcome.withLock { $0 = .some(error) }
                runner.notice(error.message)
                return
            }
            upload.withLock { $0 = u }
            runner.notice("\(Units.count(u.layout.count, "segment")) of \(Units.bytes(segmentSize)), \(o.segments ?? 1) at a time"
                          + (done.isEmpty ? "" : "; \(done.count) stored by an earlier run"))
            runner.run(u, in: session, plan: task, onEvent: { event in
                switch event {
                case .stored: ledger?.save(u.doneSegments)
                case .failed(let i, let attempt, let reason):
                    runner.notice("segment \(i + 1) failed (attempt \(attempt)): \(Redaction.redactText(reason))")
                case .started: break
                }
            }) { error in outcome.withLock { $0 = .some(error) } }
        }
        let status = await MonitorApp.run(runner, options: o, environment: environment, stayUntilQuit: false,
                                          daemon: DaemonFeed.standard(environment))
        // Quit before the end: stop the segments in flight and wait for the upload to end.
        if let u = upload.withLock({ $0 }), outcome.withLock({ $0 }) == nil {
            u.cancel()
            await waitFor { outcome.withLock { $0 } != nil }
        }
        let result = outcome.withLock { $0 } ?? nil
        let stored = upload.withLock { $0 }?.doneSegments.count ?? done.count
        let count = upload.withLock { $0 }?.layout.count ?? 0
        if result == nil {
            ledger?.remove()
            Output.shared.line("uploaded '\(SafeQuote.quote(file))' to \(Redaction.redactURL(url.absoluteString)): \(Units.count(count, "segment"))")
            return status == 130 ? 130 : 0
        }
        ledger?.release()
        Output.shared.error("transfertop: \(result!.message); \(stored) of \(count) segments stored"
                            + (ledger == nil ? "" : "; run the same command again to send the rest"))
        return status == 130 ? 130 : 1
    }

    /// Polls `done` on a thread of its own every 10 ms (the upload's end after a cancel is a
    /// matter of milliseconds; there is no event to wait on from here).
    private static func waitFor(_ done: @escaping @Sendable () -> Bool) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            Thread {
                while !done() { usleep(10_000) }
                c.resume()
            }.start()
        }
    }
}
