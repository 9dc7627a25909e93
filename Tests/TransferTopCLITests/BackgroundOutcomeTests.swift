import Foundation
import Testing
@testable import TransferTopCLI
@testable import TransferTopDaemon

/// A background download cancelled with resume data is an outcome of its own: `wait` and
/// `status` no longer say `completed failed (cancelled (-999): …)` for it.
@Suite struct BackgroundOutcomeTests {
    @Test func cancelledWithResumeDataIsNotFailed() {
        let kept = BackgroundTaskStatus(number: 4, url: "http://h/big", state: "completed", error: "cancelled (-999): cancelled",
                                        bytesReceived: 5, keptResumeData: true)
        #expect(BackgroundFormat.describe(kept) == "completed cancelled, resume data kept http://h/big")
        var nothingKept = kept
        nothingKept.keptResumeData = false
        #expect(BackgroundFormat.describe(nothingKept).hasPrefix("completed failed"))
        let table = BackgroundFormat.table([BackgroundSessionStatus(name: "s", invalidated: false, tasks: [kept])])
        #expect(table.first == "s: 1 task(s), 0 unfinished, 0 failed", "\(table)")
    }

    @Test func anEventJournaledBeforeTheFieldExistedStillDecodes() throws {
        let old = #"{"number":1,"url":"http://h/a","state":"completed","error":"cancelled (-999): cancelled","bytesReceived":3}"#
        let t = try JSONDecoder().decode(BackgroundTaskStatus.self, from: Data(old.utf8))
        #expect(t.keptResumeData == nil && !t.isCancelledWithResumeData)
    }
}
