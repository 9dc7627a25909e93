import Foundation
import TransferKit

/// What to do when a download's file name is already taken in the output directory.
public enum ExistingFiles: Sendable, Equatable {
    /// Default: a file this command placed before and the server still has unchanged is
    /// skipped ("already complete"); otherwise the new file gets a free name (`name (1)`).
    case keepBoth
    /// `--no-clobber` (wget -nc): any existing file of that name is kept and not downloaded.
    case skip
    /// `--clobber`: always download, then replace the existing file atomically.
    case replace
}

/// Removes from a plan the downloads a rerun does not need (issue 9): before, a rerun of a
/// finished command downloaded everything again as `name (1)` copies.
enum AlreadyComplete {
    static func filter(_ plan: RunPlan, store: CompletionStore?) async -> (RunPlan, notes: [String]) {
        var out = plan
        var notes: [String] = []
        for (i, session) in plan.sessions.enumerated() {
            var kept: [TaskPlan] = []
            for task in session.tasks {
                if let note = await skipNote(task, session, plan, store) { notes.append(note) } else { kept.append(task) }
            }
            out.sessions[i].tasks = kept
        }
        return (out, notes)
    }

    /// Why `task` is not run, or nil to run it.
    static func skipNote(_ task: TaskPlan, _ session: SessionPlan, _ plan: RunPlan, _ store: CompletionStore?) async -> String? {
        guard task.kind == .download else { return nil }
        let shown = Redaction.redactURL(task.url.absoluteString)
        switch plan.existingFiles {
        case .replace:
            return nil
        case .skip:
            let path = plan.outputDirectory + "/" + OutputNaming.sanitizedName(for: task.url)
            return FileManager.default.fileExists(atPath: path) ? "skipped \(shown): '\(path)' exists (--no-clobber)" : nil
        case .keepBoth:
            guard let store, let record = store.load(url: task.url.absoluteString, outputDirectory: plan.outputDirectory) else { return nil }
            let path = plan.outputDirectory + "/" + record.name
            guard fileSize(path) == record.size,
                  await CompletionProbe.isComplete(task.url, record, configuration: session.configuration) else { return nil }
            return "already complete: \(shown) is '\(path)' (same size and validator on the server)"
        }
    }

    static func fileSize(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }
}

extension Runner {
    /// Remembers a placed file for the next run's "already complete" check (not for the demo).
    func recordCompletion(_ task: TransferDownloadTask, path: String) {
        guard store != nil, let completions = CompletionStore.standard(), let response = task.response,
              let size = AlreadyComplete.fileSize(path) else { return }
        let record = CompletionStore.Record(name: (path as NSString).lastPathComponent, size: size,
                                            entityTag: response.value(forHTTPHeaderField: "ETag"),
                                            lastModified: response.value(forHTTPHeaderField: "Last-Modified"))
        completions.save(record, url: task.originalRequest.url.absoluteString, outputDirectory: plan.outputDirectory)
    }
}
