import Foundation
import TransferKit

extension Runner {
    /// What an interruption did, for the last line of the run: it used to say "run
    /// again" even when every task had already succeeded.
    public func interruptionMessage() -> String? {
        guard wasInterrupted else { return nil }
        let all = outcomeSnapshots()
        let (saved, stopped) = state.withLock { ($0.resumeSaved, $0.stoppedByInterruption) }
        let unfinished = all.filter { !succeeded($0) }
        let kept = unfinished.filter { saved.contains($0.id) }.count
        let stoppedHere = unfinished.filter { stopped.contains($0.id) && !saved.contains($0.id) }.count
        return InterruptionSummary.message(total: all.count, succeeded: all.count - unfinished.count, keptResumeData: kept,
                                           stoppedWithoutResumeData: stoppedHere,
                                           failedBefore: unfinished.count - kept - stoppedHere, hasStore: store != nil)
    }

    /// The tasks whose outcome is the run's: a task continued with `R` is left out, its
    /// continuation stands for it (in the exit status and the interruption's summary).
    func outcomeSnapshots(_ snapshots: [TaskSnapshot]? = nil) -> [TaskSnapshot] {
        let all = snapshots ?? taskSnapshots()
        let superseded = state.withLock { $0.continuedAs }
        return superseded.isEmpty ? all : all.filter { superseded[$0.id] == nil }
    }
}

/// The sentence, as a pure function of the counts: downloads that kept resume data, tasks the
/// interruption stopped with nothing kept, and tasks that had already ended without success (an
/// HTTP error, a DNS failure: they finished, and a rerun would not change them by itself).
enum InterruptionSummary {
    static func message(total: Int, succeeded: Int, keptResumeData: Int, stoppedWithoutResumeData: Int, failedBefore: Int,
                        hasStore: Bool) -> String {
        if succeeded == total { return "interrupted after every task had finished: nothing to continue" }
        var parts: [String] = []
        if keptResumeData > 0 {
            parts.append("\(keptResumeData) download(s) kept resume data: run the same command again to continue them")
        }
        if stoppedWithoutResumeData > 0 {
            parts.append("\(stoppedWithoutResumeData) task(s) did not finish and kept nothing" + (hasStore ? "; a rerun starts them again" : ""))
        }
        if failedBefore > 0 { parts.append("\(failedBefore) task(s) had already failed (see their errors)") }
        return "interrupted: " + parts.joined(separator: "; ")
    }
}
