import BackgroundWire
import Foundation
import TestSupport
import Testing
@testable import TransferTopCLI
@testable import TransferTopDaemon
@testable import TransferTopRun

/// The daemon checks every submission with the command line's own code: a client of the
/// user's own making (anything can write to the socket) gets the parser's message back, and
/// the journal gets no session, no task and no directory from a refused one.
@Suite(.serialized) struct DaemonSubmissionCheckTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var session: String
        var change: @Sendable (inout Options) -> Void
        var message: String
        var testDescription: String { message }
    }

    static let relative = "rel-\(UUID().uuidString.prefix(8))/out"

    static let rows: [Row] = [
        Row(session: "../../x", change: { _ in }, message: "--background takes a session name of 1-64 letters"),
        Row(session: "", change: { _ in }, message: "--background takes a session name of 1-64 letters"),
        Row(session: "s", change: { $0.requestTimeout = -1 }, message: "--request-timeout must be a number of seconds"),
        Row(session: "s", change: { $0.resourceTimeout = 1e300 }, message: "--resource-timeout must be a number of seconds"),
        Row(session: "s", change: { $0.maxConnectionsPerHost = 0 }, message: "--max-connections-per-host must be a whole number from 1 to 1000, not '0'"),
        Row(session: "s", change: { $0.maxConnectionsPerHost = -5 }, message: "--max-connections-per-host must be a whole number from 1 to 1000, not '-5'"),
        Row(session: "s", change: { $0.outputDirectory = relative }, message: "--output-dir must be an absolute path in a submission"),
        Row(session: "s", change: { $0.outputDirectory = nil }, message: "a submission names its --output-dir"),
        Row(session: "s", change: { $0.cookieFiles = ["jar.txt"] }, message: "--cookie must be an absolute path in a submission"),
        Row(session: "s", change: { $0.userAgent = "ua\r\nX-Injected: 1" }, message: "bad --user-agent"),
        Row(session: "s", change: { $0.upload = "-" }, message: "--background cannot read --upload -"),
        Row(session: "s", change: { $0.segments = 2 }, message: "--background does not take --segments"),
        Row(session: "s", change: { $0.inputFiles = ["/tmp/list.txt"] }, message: "not --input-file names"),
    ]

    @Test func everyBadSubmissionIsRefusedWithTheParsersMessageAndLeavesNothing() async throws {
        let rig = try BackgroundDaemonTests.Rig()
        let started = try await rig.run(["daemon", "start"])
        #expect(started.status == 0, "\(started.stdout)\(started.stderr)\(rig.log)")
        let paths = rig.paths
        let client = try await offPool { try DaemonClient.connect(paths, start: false) }
        for row in Self.rows {
            var options = Options()
            options.urls = ["http://127.0.0.1:9/x"]
            options.outputDirectory = rig.out
            options.noTUI = true
            row.change(&options)
            let submission = options
            let reply: Result<DaemonReply, DaemonError> = await offPool {
                Result { () throws(DaemonError) in try client.request(.submit(session: row.session, options: submission)) }
            }
            switch reply {
            case .success(let r): Issue.record("accepted: \(row.message): \(r)")
            case .failure(let e): #expect(e.message.contains(row.message), "\(e.message)")
            }
        }
        let status = try await offPool { try client.request(.status(session: nil)) }
        #expect(status == .status([]), "\(status)")
        #expect(!FileManager.default.fileExists(atPath: "/" + Self.relative))
        // The daemon still serves a good submission on the same connection.
        var options = Options()
        options.urls = ["http://127.0.0.1:9/x"]
        options.outputDirectory = rig.out
        options.noTUI = true
        let good = options
        let accepted = try await offPool { try client.request(.submit(session: "good", options: good)) }
        #expect(accepted == .submitted(session: "good", tasks: [1]), "\(accepted)")
    }
}
