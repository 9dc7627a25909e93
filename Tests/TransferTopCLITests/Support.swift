import Foundation
import LoopbackServer

/// Finds the built `transfertop` next to the test bundle, whatever the scratch path.
enum Binary {
    static var path: String? {
        var candidates: [URL] = []
        let arg0 = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        candidates.append(arg0.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for dir in candidates {
            var d = dir
            for _ in 0..<3 {
                let p = d.appendingPathComponent("transfertop").path
                if FileManager.default.isExecutableFile(atPath: p) { return p }
                d = d.deletingLastPathComponent()
            }
        }
        return nil
    }
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Run {
    /// Runs the binary with stdout and stderr as pipes (so it is "not a terminal").
    static func binary(_ args: [String], environment extra: [String: String] = [:], directory: String? = nil) throws -> RunResult {
        guard let path = Binary.path else { throw TestFailure("transfertop binary not found near \(CommandLine.arguments[0])") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (k, v) in extra { env[k] = v }
        p.environment = env
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        // Read both pipes concurrently so neither fills up and blocks the child.
        nonisolated(unsafe) var errData = Data()
        let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return RunResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }

    static func tempDirectory() throws -> String {
        let d = NSTemporaryDirectory() + "tt-cli-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
