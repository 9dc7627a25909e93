import Foundation
import TransferKit
import TransferModel

/// A segmented upload inside a run, so the monitor shows its segment tasks, its
/// map and its keys like any session's: the run stays open while the upload is under way
/// (between segments, during a back-off, no task may be live), and each segment's task is
/// tracked as one of the run's.
extension Runner {
    /// Runs after `start()` made the sessions (the segmented upload begins there).
    public func afterStart(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.afterStart = body } }

    /// Starts `upload` in `session` (one of this run's) and keeps the run open until it ends.
    package func run(_ upload: SegmentedUpload, in session: TransferSession, plan tp: TaskPlan,
             onEvent: @escaping @Sendable (SegmentedUpload.Event) -> Void,
             completion: @escaping @Sendable (TransferError?) -> Void) {
        group.enter()
        state.withLock { $0.segmented[session.sessionID] = upload }
        upload.start(startTask: { [self] task in adopt(task, plan: tp, in: session) }, onEvent: onEvent) { [self] error in
            completion(error)
            group.leave()
        }
    }

    /// Each segmented upload's segment states, by session (the monitor's map).
    public func segmentMaps() -> [Int: [SegmentScheduler.State]] {
        state.withLock { $0.segmented }.mapValues(\.states)
    }

    /// The run's segmented uploads (cancelled when the monitor quits early).
    var segmentedUploads: [SegmentedUpload] { state.withLock { Array($0.segmented.values) } }
}
