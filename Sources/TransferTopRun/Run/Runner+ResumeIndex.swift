import Foundation
import TransferKit

/// Which URLs have saved resume data, read once per run from the store's directory listing:
/// a list of 100,000 URLs then costs no failed open and no failed unlink per URL
/// in the state directory. Records saved during the run are added as they are written.
extension Runner {
    func hasResumeRecord(_ url: URL) -> Bool {
        guard let store else { return false }
        let none = state.withLock { s -> Bool in
            if s.resumeKeys == nil { s.resumeKeys = Self.keys(in: store) }
            return s.resumeKeys!.isEmpty
        }
        if none { return false }  // the usual case: no hashing at all
        let key = ResumeStore.key(url: url.absoluteString, outputDirectory: plan.outputDirectory)
        return state.withLock { $0.resumeKeys!.contains(key) }
    }

    func noteResumeRecord(_ url: URL) {
        let key = ResumeStore.key(url: url.absoluteString, outputDirectory: plan.outputDirectory)
        state.withLock { s in
            if s.resumeKeys == nil, let store { s.resumeKeys = Self.keys(in: store) }
            s.resumeKeys?.insert(key)
        }
    }

    private static func keys(in store: ResumeStore) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.directory)) ?? []
        return Set(names.compactMap { $0.hasSuffix(".resume") ? String($0.dropLast(".resume".count)) : nil })
    }
}
