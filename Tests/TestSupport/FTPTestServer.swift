import Foundation

/// A real FTP server (pyftpdlib, `ftp_server.py` beside this file) on 127.0.0.1 for one test:
/// started as a child process on a port the kernel picks, ready when it prints that port (an
/// event, not a wait), stopped by closing its standard input. `scripts/setup` installs
/// pyftpdlib; without it the tests fail with a message saying so, they never skip.
public final class FTPTestServer: @unchecked Sendable {
    // @unchecked: every field is set in init and never changed; `process` is only read.
    public let port: Int
    public let root: String
    public let user: String
    public let password: String
    /// `ftps` when the server speaks implicit FTPS, else `ftp`.
    public let scheme: String
    private let process: ChildProcess
    /// Our end of its standard input (close-on-exec: no other child holds it open).
    private let stdin: Int32

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
        let input = try ChildProcess.closeOnExecPipe()
        let output = try ChildProcess.closeOnExecPipe()
        let p: ChildProcess
        do {
            p = try ChildProcess.spawn([python, Self.script, root, user, password] + (tls.map { [$0.certificate, $0.key] } ?? []),
                                       standardInput: .descriptor(input.read), standardOutput: .descriptor(output.write))
        } catch {
            for fd in [input.read, input.write, output.read, output.write] { close(fd) }
            throw error
        }
        close(input.read)
        close(output.write)
        // Blocking read of the first line: the server prints it once it listens, and the pipe
        // ends when it exits (only it holds the write end).
        let reader = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        var line = Data()
        while true {
            let byte = reader.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            close(input.write)
            kill(p.pid, SIGTERM)
            _ = p.waitBlocking()
            throw Unavailable(description: "the FTP test server did not start: '\(text)'")
        }
        self.port = port
        self.root = root
        self.user = user
        self.password = password
        scheme = tls == nil ? "ftp" : "ftps"
        process = p
        stdin = input.write
    }

    /// `ftp://user:password@127.0.0.1:port/path` (or without credentials).
    public func url(_ path: String, credentials: Bool = true, user: String? = nil, password: String? = nil) -> URL {
        let info = credentials ? "\(user ?? self.user):\(password ?? self.password)@" : ""
        return URL(string: "\(scheme)://\(info)127.0.0.1:\(port)/\(path)")!
    }

    /// Stops the server and waits for it to exit.
    public func stop() async {
        close(stdin)
        let p = process
        // The end of its stdin stops it; a signal too, in case a child of its own kept it.
        kill(p.pid, SIGTERM)
        _ = await offPool { p.waitBlocking() }
    }
}
