import Foundation
import LoopbackServer

/// `transferbench serve`: the loopback server in a process of its own, for benchmarks that
/// need a server nginx is not (segmented PUTs with Content-Range, `/delay` on HTTPS with h2).
/// Prints the HTTP/1.1 base URL on one line; given a CA file path, writes the server's CA
/// certificate there and prints the HTTPS (h2) base URL on a second line. Then serves until
/// killed.
enum Serve {
    static func run(caFile: String?) -> Never {
        Task {
            do {
                let server = try await LoopbackServer.start()
                var lines = server.httpBase + "\n"
                if let caFile {
                    try server.writeCACertificate(to: caFile)
                    lines += server.httpsBase + "\n"
                }
                FileHandle.standardOutput.write(Data(lines.utf8))
            } catch {
                FileHandle.standardError.write(Data("transferbench serve: \(error)\n".utf8))
                exit(1)
            }
        }
        dispatchMain()
    }
}
