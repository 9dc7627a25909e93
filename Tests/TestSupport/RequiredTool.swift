import Foundation
import TransferModel

/// The programs and python packages the tests use, found where `scripts/setup` installs them.
/// A missing one fails the test that needs it with a message naming it and the command that
/// installs it: tests never skip for want of a tool.
public enum RequiredTool {
    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    static var searchPath: [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin"]
    }

    /// The executable `name` on PATH (then the usual places).
    public static func program(_ name: String) throws -> String {
        if let found = searchPath.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            return found
        }
        throw Missing(description: "\(name) is not installed: run scripts/setup")
    }

    /// The first python3 on PATH (then the usual places) that can import `module`.
    public static func python(importing module: String, package: String? = nil) throws -> String {
        let found = pythons.withLock { cache -> String? in
            if let hit = cache[module] { return hit }
            let python = searchPath.map { "\($0)/python3" }.filter { FileManager.default.isExecutableFile(atPath: $0) }.first { py in
                (try? ToolRun.runBlocking(py, ["-c", "import \(module)"]))?.status == 0
            }
            cache[module] = python
            return python
        }
        if let found { return found }
        throw Missing(description: "python3 cannot import \(module) (pip package \(package ?? module)): run scripts/setup")
    }

    /// The python found for each module (nil: none has it), asked once per process.
    private static let pythons = Locked<[String: String?]>([:])
}
