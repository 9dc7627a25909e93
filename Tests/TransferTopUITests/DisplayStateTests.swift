import Foundation
import Testing
import TransferModel
@testable import TransferTopUI

/// A completed task's state as every view shows it agrees with how the run's exit status counts
/// it: only a 2xx final response (or a scheme without status codes) is `completed ok`.
@Suite struct DisplayStateTests {
    func completed(_ status: Int?, url: String = "http://h/x") -> TaskSnapshot {
        TaskSnapshot(sessionID: 1, sessionName: "s", taskIdentifier: 1, kind: .download, state: .completed,
                     originalURL: url, statusCode: status, metrics: TaskMetrics(taskIntervalStart: Date(timeIntervalSince1970: 0)))
    }

    @Test(arguments: [200, 204, 206, 299])
    func aSuccessIsOK(_ status: Int) {
        #expect(DisplayState(completed(status)) == .completed)
    }

    /// A 302 without a Location, a 304, a 101: a final answer that is not the resource.
    @Test(arguments: [101, 199, 300, 302, 304, 399, 404, 500])
    func anythingElseIsAnHTTPError(_ status: Int) {
        #expect(DisplayState(completed(status)) == .httpError)
        #expect(DisplayState(completed(status)).outcome(completed(status)) == "HTTP \(status)")
    }

    @Test func schemesWithoutStatusCodesAreOK() {
        #expect(DisplayState(completed(nil, url: "file:///tmp/x")) == .completed)
        #expect(DisplayState(completed(0, url: "ftp://h/x")) == .completed)
    }
}
