import Foundation
import TestSupport

/// Finds python3 for the checks that need an independent implementation (Python's csv module,
/// jsonschema).
enum ExternalTool {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// Every python3 on PATH (then the usual places), in PATH order.
    static let pythons: [String] = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin"]
        return dirs.map { "\($0)/python3" }.filter { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The first python3, if any is installed.
    static let python3: String? = pythons.first

    /// The first python3 that has the jsonschema package (pyenv and system pythons differ).
    static let pythonWithJSONSchema: String? = pythons.first { py in
        (try? ToolRun.runBlocking(py, ["-c", "import jsonschema"]))?.status == 0
    }

    static func temporaryFile(_ name: String, _ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tm-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}
