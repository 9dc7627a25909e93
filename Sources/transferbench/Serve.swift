import Foundation
import LoopbackServer

/// `transferbench serve`: the loopback server in a process of its own, for benchmarks that
/// need a server nginx is not (segmented PUTs with Content-Range). Prints the base
/// URL on one line, then serves until killed.
enum Serve {
    static func run() -> Never {
        Task {
            do {
                let server = try await LoopbackServer.start()
                FileHandle.standardOutput.write(Data((server.httpBase + "\n").utf8))
            } catch {
                FileHandle.standardError.write(Data("transferbench serve: \(error)\n".utf8))
                exit(1)
            }
        }
        dispatchMain()
    }
}
