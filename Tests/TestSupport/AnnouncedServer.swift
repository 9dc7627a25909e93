import Foundation

/// A server program the tests start (the FTP server, the OTLP receiver): it listens on a
/// port the kernel picks, prints `PORT <n>` once it accepts connections (the test waits for
/// that line, an event, never for time), and exits when its standard input closes (the
/// test's teardown, or the test process dying). The Python servers share that side of it
/// (`announced.py`, imported beside them; run with `-B` so no `__pycache__` lands in the
/// source tree).
public struct AnnouncedServer: Sendable {
    public let process: ChildProcess
    public let port: Int
    /// Our end of its standard input (close-on-exec: no other child holds it open).
    let stdin: Int32

    /// Starts `argv` and reads its first line, blocking (call it off the cooperative pool);
    /// `what` names it in the error when that line is not a port.
    public static func start(_ argv: [String], what: String) throws -> AnnouncedServer {
        let input = try ChildProcess.closeOnExecPipe()
        let output = try ChildProcess.closeOnExecPipe()
        let p: ChildProcess
        do {
            p = try ChildProcess.spawn(argv, standardInput: .descriptor(input.read), standardOutput: .descriptor(output.write))
        } catch {
            for fd in [input.read, input.write, output.read, output.write] { close(fd) }
            throw error
        }
        close(input.read)
        close(output.write)
        // The pipe ends when it exits: only it holds the write end.
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
            throw TestFailure("\(what) did not start: '\(text)'")
        }
        return AnnouncedServer(process: p, port: port, stdin: input.write)
    }

    /// Closes its standard input, which ends it, and a signal too in case a child of its own
    /// kept it; waits for it to exit. Once.
    public func stop() async {
        close(stdin)
        let p = process
        kill(p.pid, SIGTERM)
        _ = await offPool { p.waitBlocking() }
    }
}
