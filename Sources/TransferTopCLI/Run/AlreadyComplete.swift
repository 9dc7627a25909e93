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
            var skip = Set<Int>()
            var probes: [(index: Int, path: String)] = []
            var candidates: [(URL, CompletionStore.Record)] = []
            for (j, task) in session.tasks.enumerated() where task.kind == .download {
                switch decision(task, plan, store) {
                case .run: break
                case .skip(let note): skip.insert(j); notes.append(note)
                case .probe(let record, let path): probes.append((j, path)); candidates.append((task.url, record))
                }
            }
            let complete = await CompletionProbe.complete(candidates, configuration: session.configuration)
            for (probe, isComplete) in zip(probes, complete) where isComplete {
                skip.insert(probe.index)
                let shown = Redaction.redactURL(session.tasks[probe.index].url.absoluteString)
                notes.append("already complete: \(shown) is '\(probe.path)' (same size and validator on the server)")
            }
            out.sessions[i].tasks = session.tasks.enumerated().filter { !skip.contains($0.offset) }.map(\.element)
        }
        return (out, notes)
    }

    enum Decision {
        case run
        case skip(String)
        /// A file this command placed before, still of its recorded size: ask the server.
        case probe(CompletionStore.Record, path: String)
    }

    static func decision(_ task: TaskPlan, _ plan: RunPlan, _ store: CompletionStore?) -> Decision {
        switch plan.existingFiles {
        case .replace:
            return .run
        case .skip:
            let path = plan.outputDirectory + "/" + OutputNaming.sanitizedName(for: task.url)
            guard FileManager.default.fileExists(atPath: path) else { return .run }
            return .skip("skipped \(Redaction.redactURL(task.url.absoluteString)): '\(path)' exists (--no-clobber)")
        case .keepBoth:
            guard let store, let record = store.load(url: task.url.absoluteString, outputDirectory: plan.outputDirectory) else { return .run }
            let path = plan.outputDirectory + "/" + record.name
            return fileSize(path) == record.size ? .probe(record, path: path) : .run
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
