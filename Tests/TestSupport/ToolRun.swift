import Foundation

/// Runs an outside program (curl, python3 with jsonschema or prometheus_client) for checks
/// that need an implementation we did not write.
public enum ToolRun {
    /// On a thread of its own, never blocking the cooperative pool. `withStandardError`: the
    /// output includes stderr (for messages); off when stdout alone is parsed (JSON).
    public static func run(_ executable: String, _ arguments: [String], withStandardError: Bool = true)
        async throws -> (status: Int32, output: String) {
        try await offPool { try runBlocking(executable, arguments, withStandardError: withStandardError) }
    }

    /// The same, blocking the calling thread. The output goes to a file, not a pipe: a file
    /// has an end even when a child of the program lives on.
    public static func runBlocking(_ executable: String, _ arguments: [String], withStandardError: Bool = true)
        throws -> (status: Int32, output: String) {
        let path = NSTemporaryDirectory() + "toolrun-\(UUID().uuidString)"
        defer { unlink(path) }
        // Opened once, shared by stdout and stderr, so their lines interleave as written.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TestFailure("cannot create \(path)") }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn([executable] + arguments, standardOutput: .descriptor(fd),
                                           standardError: withStandardError ? .descriptor(fd) : .null)
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        let status = child.waitBlocking()
        let data = FileManager.default.contents(atPath: path) ?? Data()
        return (status, String(decoding: data, as: UTF8.self))
    }
}
