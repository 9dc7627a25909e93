import Foundation
import Testing

/// Golden text files under `Golden/` (as in the UI tests). Run with `RECORD=1` to rewrite
/// them from the actual output, then review the diff before committing.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    /// The package's root, for generated files that are committed elsewhere (the man page).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var recording: Bool { ProcessInfo.processInfo.environment["RECORD"] == "1" }

    static func check(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        check(actual, file: directory.appendingPathComponent(name + ".txt"), sourceLocation: sourceLocation)
    }

    /// `actual` must be the file's text exactly.
    static func check(_ actual: String, file: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        if recording {
            try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? actual.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("missing golden \(file.lastPathComponent); run with RECORD=1. Actual:\n\(actual)", sourceLocation: sourceLocation)
            return
        }
        #expect(actual == expected, "golden \(file.lastPathComponent) differs; actual:\n\(actual)", sourceLocation: sourceLocation)
    }
}
