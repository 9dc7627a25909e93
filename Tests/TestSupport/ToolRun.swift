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

    public static func runBlocking(_ executable: String, _ arguments: [String], withStandardError: Bool = true)
        throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        if withStandardError { p.standardError = pipe }
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
