import Foundation
import Testing

/// Golden text files under `Golden/`. Run with `RECORD=1` to rewrite them from the actual
/// output (then review the diff before committing).
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func check(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let file = directory.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["RECORD"] == "1" {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try? (actual + "\n").write(to: file, atomically: true, encoding: .utf8)
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("missing golden \(name).txt; run with RECORD=1. Actual:\n\(actual)", sourceLocation: sourceLocation)
            return
        }
        #expect(actual + "\n" == expected, "golden \(name).txt differs; actual:\n\(actual)", sourceLocation: sourceLocation)
    }
}
