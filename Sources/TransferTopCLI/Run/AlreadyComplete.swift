import Foundation
import TransferKit

/// What to do when a download's file name is already taken in the output directory.
public enum ExistingFiles: Sendable, Equatable, Codable {
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
        // Nothing to look up: every download runs. Asked once, not once per URL (a first run
        // of a 1,000,000-line list hashed every URL against an empty journal, issue 8).
        switch plan.existingFiles {
        case .replace: return (plan, [])
        case .keepBoth where !(store?.hasRecords(outputDirectory: plan.outputDirectory) ?? false): return (plan, [])
        default: break
        }
        var out = plan
        var notes: [String] = []
        for (i, session) in plan.sessions.enumerated() {
            // A session's downloads are its tasks and its streamed list (`downloadURLs`,
            // issue 8): a rerun of `-i list` skips what it placed just as a rerun of URLs does.
            // Slot k < tasks.count is task k; above, downloadURLs[k - tasks.count].
            let count = session.tasks.count
            func url(_ k: Int) -> URL? { k < count ? session.tasks[k].url : URL(string: session.downloadURLs[k - count]) }
            // A rerun's look-ups: the journal's records taken once, each URL's key hashed from
            // its text, and a URL parsed only when its key is there. Per URL, the journal's
            // path, a lock and a parse cost 4.5 s before a rerun of 1,000,000 lines began.
            let records = plan.existingFiles == .keepBoth ? store?.records(outputDirectory: plan.outputDirectory) ?? [:] : nil
            func text(_ k: Int) -> String { k < count ? session.tasks[k].url.absoluteString : session.downloadURLs[k - count] }
            var skip = Set<Int>()
            var probes: [(slot: Int, path: String)] = []
            var candidates: [(URL, CompletionStore.Record)] = []
            for k in 0..<(count + session.downloadURLs.count) {
                guard k >= count || session.tasks[k].kind == .download else { continue }
                if let records, records[ResumeStore.key(url: text(k), outputDirectory: plan.outputDirectory)] == nil { continue }
                guard let u = url(k) else { continue }
                switch decision(u, plan, store) {
                case .run: break
                case .skip(let note): skip.insert(k); notes.append(note)
                case .probe(let record, let path): probes.append((k, path)); candidates.append((u, record))
                }
            }
            guard !skip.isEmpty || !probes.isEmpty else { continue }
            let complete = await CompletionProbe.complete(candidates, configuration: session.configuration)
            for ((probe, candidate), isComplete) in zip(zip(probes, candidates), complete) where isComplete {
                skip.insert(probe.slot)
                let shown = Redaction.redactURL(candidate.0.absoluteString)
                notes.append("already complete: \(shown) is '\(probe.path)' (same size and validator on the server)")
            }
            out.sessions[i].tasks = session.tasks.enumerated().filter { !skip.contains($0.offset) }.map(\.element)
            out.sessions[i].downloadURLs = session.downloadURLs.enumerated().filter { !skip.contains($0.offset + count) }.map(\.element)
        }
        return (out, notes)
    }

    enum Decision {
        case run
        case skip(String)
        /// A file this command placed before, still of its recorded size: ask the server.
        case probe(CompletionStore.Record, path: String)
    }

    static func decision(_ url: URL, _ plan: RunPlan, _ store: CompletionStore?) -> Decision {
        switch plan.existingFiles {
        case .replace:
            return .run
        case .skip:
            // The name this command gave the URL's file before (a Content-Disposition name is
            // known only from a response), else the URL's. Hashing for the journal only when
            // it holds records: a first run of a long list looks nothing up (decision 41).
            let recorded = store.flatMap { s in
                s.hasRecords(outputDirectory: plan.outputDirectory) ? s.load(url: url.absoluteString, outputDirectory: plan.outputDirectory)?.name : nil
            }
            let path = plan.outputDirectory + "/" + (recorded ?? OutputNaming.sanitizedName(for: url))
            guard FileManager.default.fileExists(atPath: path) else { return .run }
            return .skip("skipped \(Redaction.redactURL(url.absoluteString)): '\(path)' exists (--no-clobber)")
        case .keepBoth:
            guard let store, let record = store.load(url: url.absoluteString, outputDirectory: plan.outputDirectory) else { return .run }
            let path = plan.outputDirectory + "/" + record.name
            return fileSize(path) == record.size ? .probe(record, path: path) : .run
        }
    }

    /// The size of the file at `path` itself (a symbolic link is not followed). One `lstat`:
    /// `FileManager.attributesOfItem` also looked up the owner's and group's names and the
    /// extended attributes, a dozen system calls per placed file (issue 8 profile).
    static func fileSize(_ path: String) -> Int64? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return Int64(st.st_size)
    }
}

extension Runner {
    /// Remembers a placed file for the next run's "already complete" check (not for the demo).
    /// `size` when the caller wrote the bytes itself (no `lstat` in a large directory).
    func recordCompletion(_ task: TransferDownloadTask, path: String, size known: Int64? = nil) {
        guard let completions, let response = task.response, let size = known ?? AlreadyComplete.fileSize(path) else { return }
        // The last component, found from the end (a split made every component of the path).
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let name = trimmed.lastIndex(of: "/").map { String(trimmed[trimmed.index(after: $0)...]) } ?? trimmed
        let record = CompletionStore.Record(name: name, size: size,
                                            entityTag: response.value(forHTTPHeaderField: "ETag"),
                                            lastModified: response.value(forHTTPHeaderField: "Last-Modified"))
        completions.append(record, url: task.originalRequest.url.absoluteString)
    }
}
