import Foundation

/// Finds an executable of this package (`transfertop`, `transferbench`) built next to the test
/// bundle, whatever the scratch path (`.build`, `.build-thread`, ...).
public enum BuiltExecutable {
    public static func path(_ name: String) -> String? {
        var candidates: [URL] = []
        let arg0 = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        candidates.append(arg0.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for dir in candidates {
            var d = dir
            for _ in 0..<3 {
                let p = d.appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: p) { return p }
                d = d.deletingLastPathComponent()
            }
        }
        return nil
    }
}
