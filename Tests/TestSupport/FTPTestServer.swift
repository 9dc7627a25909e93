import Foundation

/// A real FTP server (pyftpdlib, `ftp_server.py` beside this file) on 127.0.0.1 for one test:
/// started as a child process on a port the kernel picks, ready when it prints that port (an
/// event, not a wait), stopped by closing its standard input. `scripts/setup` installs
/// pyftpdlib; without it the tests fail with a message saying so, they never skip.
public final class FTPTestServer: @unchecked Sendable {
    // @unchecked: every field is set in init and never changed.
    public let port: Int
    public let root: String
    public let user: String
    public let password: String
    /// `ftps` when the server speaks implicit FTPS, else `ftp`.
    public let scheme: String
    private let server: AnnouncedServer

    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ftp_server.py").path


    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts a server serving `root` to `user`/`password`; with `tls` (a PEM certificate and
    /// key file) it speaks implicit FTPS (needs pyOpenSSL, which scripts/test installs).
    public static func start(root: String, user: String = "tester", password: String = "s3cret-pw",
                             tls: (certificate: String, key: String)? = nil) async throws -> FTPTestServer {
        let python = try RequiredTool.python(importing: tls == nil ? "pyftpdlib" : "OpenSSL", package: tls == nil ? nil : "pyopenssl")
        return try await offPool { try FTPTestServer(python: python, root: root, user: user, password: password, tls: tls) }
    }

    private init(python: String, root: String, user: String, password: String, tls: (certificate: String, key: String)?) throws {
        do {
            server = try AnnouncedServer.start([python, "-B", Self.script, root, user, password] + (tls.map { [$0.certificate, $0.key] } ?? []),
                                               what: "the FTP test server")
        } catch let failure as TestFailure {
            throw Unavailable(description: failure.description)
        }
        let port = server.port
        self.port = port
        self.root = root
        self.user = user
        self.password = password
        scheme = tls == nil ? "ftp" : "ftps"
    }

    /// `ftp://user:password@127.0.0.1:port/path` (or without credentials).
    public func url(_ path: String, credentials: Bool = true, user: String? = nil, password: String? = nil) -> URL {
        let info = credentials ? "\(user ?? self.user):\(password ?? self.password)@" : ""
        return URL(string: "\(scheme)://\(info)127.0.0.1:\(port)/\(path)")!
    }

    /// Stops the server and waits for it to exit.
    public func stop() async { await server.stop() }
}
