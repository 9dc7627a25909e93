import Foundation
import TransferKit

extension Runner {
    /// What an interruption did, for the last line of the run: it used to say "run
    /// again" even when every task had already succeeded.
    public func interruptionMessage() -> String? {
        guard wasInterrupted else { return nil }
        let all = taskSnapshots()
        let saved = state.withLock { $0.resumeSaved }
        return InterruptionSummary.message(total: all.count, succeeded: all.filter(succeeded).count,
                                           keptResumeData: all.filter { saved.contains($0.id) }.count,
                                           hasStore: store != nil)
    }
}

/// The sentence, as a pure function of the counts.
enum InterruptionSummary {
    static func message(total: Int, succeeded: Int, keptResumeData: Int, hasStore: Bool) -> String {
        if succeeded == total { return "interrupted after every task had finished: nothing to continue" }
        let unfinished = total - succeeded
        var parts: [String] = []
        if keptResumeData > 0 {
            parts.append("\(keptResumeData) download(s) kept resume data: run the same command again to continue them")
        }
        let rest = unfinished - keptResumeData
        if rest > 0 {
            parts.append("\(rest) task(s) did not finish and kept nothing" + (hasStore ? "; a rerun starts them again" : ""))
        }
        return "interrupted: " + parts.joined(separator: "; ")
    }
}
