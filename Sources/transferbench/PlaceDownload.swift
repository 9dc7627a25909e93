import Foundation

/// Moves a finished download's temporary file to the benchmark's target path (counted in the
/// disk case's time, for every client alike). Returns whether it moved, and why not.
func placeDownload(_ location: URL, at target: URL) -> (moved: Bool, error: String) {
    do {
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.moveItem(at: location, to: target)
        return (true, "")
    } catch {
        return (false, "\(error)")
    }
}
