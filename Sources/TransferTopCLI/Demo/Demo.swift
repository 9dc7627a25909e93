import Foundation
import LoopbackServer
import TransferKit
import TransferTopRun

/// `transfertop demo`: an embedded loopback server and a scripted mix of sessions
/// and tasks, entirely offline.
public enum Demo {
    public static func run(_ options: Options, environment: [String: String]) async -> Int32 {
        let server: LoopbackServer
        do { server = try await LoopbackServer.start() } catch {
            Output.shared.error("transfertop: cannot start the demo server: \(error)")
            return 1
        }
        defer { Task { try? await server.shutdown() } }
        do {
            let dir = try makePrivateDirectory()
            let ca = dir + "/loopback-ca.pem"
            try write(Data(LoopbackServer.caCertificatePEM.utf8), to: ca)
            let upload = dir + "/upload.bin"
            try write(Data(LoopbackServer.body(size: 1_500_000, seed: 7)), to: upload)
            let downloads = dir + "/downloads"
            try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
            server.setFile("resumable.bin", size: 6_000_000, seed: 3)
            var plan = script(http: server.httpBase, https: server.httpsBase, ca: ca, upload: upload,
                              outputDirectory: downloads, options: options)
            plan.applyUserAgent(options.userAgent)
            if !TransferTopMain.useMonitor(options, environment) {
                Output.shared.line("demo: loopback server at \(server.httpBase) and \(server.httpsBase); downloads go to \(downloads)")
            }
            let status = await TransferTopMain.execute(plan, options: options, environment: environment, demo: true)
            return status == 2 ? 2 : 0
        } catch {
            Output.shared.error("transfertop: demo setup failed: \(error)")
            return 1
        }
    }

    /// The scripted mix: three sessions, every feature of the monitor visible in a minute.
    static func script(http: String, https: String, ca: String, upload: String, outputDirectory: String,
                       options: Options) -> RunPlan {
        func u(_ s: String) -> URL { URL(string: s)! }
        var fast = SessionPlan(name: "fast")
        fast.caFile = ca
        fast.tasks = [
            TaskPlan(kind: .download, url: u("\(http)/bytes/200000000?seed=1")),
            TaskPlan(kind: .download, url: u("\(http)/bytes/50000000?seed=2")),
            TaskPlan(kind: .download, url: u("\(http)/redirect/3")),
            TaskPlan(kind: .download, url: u("\(https)/bytes/30000000?seed=4")),
            TaskPlan(kind: .download, url: u("\(http)/status/404")),
            TaskPlan(kind: .upload, url: u("\(http)/echo"), method: "POST", file: upload),
        ]
        var slow = SessionPlan(name: "slow")
        slow.kind = .ephemeral
        slow.requestTimeout = 3
        slow.caFile = ca
        slow.tasks = [
            TaskPlan(kind: .download, url: u("\(http)/drip?size=600000&rate=60000&seed=5")),
            TaskPlan(kind: .download, url: u("\(http)/drip?size=1500000&rate=150000&seed=6")),
            TaskPlan(kind: .download, url: u("\(http)/stall?size=1000000&after=65536")),
        ]
        var single = SessionPlan(name: "one-per-host")
        single.maxConnectionsPerHost = 1
        single.caFile = ca
        var resumable = TaskPlan(kind: .download, url: u("\(http)/files/resumable.bin?rate=800000"))
        resumable.suspendAfter = 2.5
        resumable.resumeAfter = 3
        single.tasks = [
            resumable,
            TaskPlan(kind: .download, url: u("\(http)/bytes/4000000?seed=8")),
            TaskPlan(kind: .data, url: u("\(https)/redirect/2")),
        ]
        return RunPlan(sessions: [fast, slow, single], outputDirectory: outputDirectory, csv: options.csv, har: options.har)
    }

    static func makePrivateDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "transfertop-demo-XXXXXX").utf8CString)
        guard let p = mkdtemp(&template) else { throw CLIError("cannot make a temporary directory") }
        return String(cString: p)
    }

    static func write(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("cannot write '\(path)'")
        }
    }
}
