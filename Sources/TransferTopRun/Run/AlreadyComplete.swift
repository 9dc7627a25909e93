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

/// Removes from a plan the downloads a rerun does not need: before, a rerun of a
/// finished command downloaded everything again as `name (1)` copies.
package enum AlreadyComplete {
    package static func filter(_ plan: RunPlan, store: CompletionStore?) async -> (RunPlan, notes: [String]) {
        // Nothing to look up: every download runs. Asked once, not once per URL (a first run
        // of a 1,000,000-line list hashed every URL against an empty journal).
        let urlCount = plan.sessions.reduce(0) { $0 + $1.tasks.count + $1.downloadURLs.count }
        if plan.existingFiles == .replace {
            // Still a line per placed file: the journal is kept bounded without being read.
            store?.bound(outputDirectory: plan.outputDirectory, urls: urlCount)
            return (plan, [])
        }
        let listing = urlCount >= Self.listingThreshold ? DirectoryListing(plan.outputDirectory) : .unread
        // An empty output directory (or none yet) holds no file to keep: the journal is not
        // even read (a nightly list into a directory its consumer empties), and what it holds
        // is let go, so it does not grow by a list's lines every night.
        if listing.names?.isEmpty == true {
            store?.discardRecordsOfEmptyDirectory(plan.outputDirectory)
            return (plan, [])
        }
        if plan.existingFiles == .keepBoth, !(store?.hasRecords(outputDirectory: plan.outputDirectory) ?? false) {
            return (plan, [])
        }
        var out = plan
        var notes: [String] = []
        // The journal's records, taken once: each URL's key is hashed from its text and a URL is
        // parsed only when it is needed (per URL, the journal's path, a lock and a parse cost
        // 4.5 s before a rerun of 1,000,000 lines began).
        let records = store?.records(outputDirectory: plan.outputDirectory) ?? CompletionIndex()
        for (i, session) in plan.sessions.enumerated() {
            // A session's downloads are its tasks and its streamed list (`downloadURLs`):
            // a rerun of `-i list` skips what it placed just as a rerun of URLs does.
            // Slot k < tasks.count is task k; above, downloadURLs[k - tasks.count].
            let count = session.tasks.count
            @Sendable func text(_ k: Int) -> String { k < count ? session.tasks[k].url.absoluteString : session.downloadURLs[k - count] }
            @Sendable func url(_ k: Int) -> URL? { k < count ? session.tasks[k].url : URL(string: text(k)) }
            var skip = Set<Int>()
            var probes: [(slot: Int, path: String)] = []
            var candidates: [(URL, CompletionStore.Record)] = []
            let decisions = decideAll(count + session.downloadURLs.count) { k in
                guard k >= count || session.tasks[k].kind == .download else { return .run }
                return decision(text(k), url: { url(k) }, plan, records, listing: listing)
            }
            for (k, d) in decisions.enumerated() {
                switch d {
                case .run: break
                case .skip(let note): skip.insert(k); notes.append(note)
                case .probe(let record, let path):
                    guard let u = url(k) else { continue }
                    probes.append((k, path))
                    candidates.append((u, record))
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

    /// `decide(k)` for every k below `count`, in order. A long list's look-ups (a key hashed, a
    /// journal line parsed and a file looked at per URL) run before the first download starts,
    /// when the other cores have nothing to do: they are shared among them (DECISIONS 210).
    static func decideAll(_ count: Int, _ decide: @Sendable (Int) -> Decision) -> [Decision] {
        let chunks = count >= 2_000 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        guard chunks > 1 else { return (0..<count).map(decide) }
        let size = (count + chunks - 1) / chunks
        let parts = Locked([[Decision]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            let part = (c * size..<min(count, (c + 1) * size)).map(decide)
            parts.withLock { $0[c] = part }
        }
        return parts.withLock { $0.flatMap { $0 } }
    }

    enum Decision: Sendable {
        case run
        case skip(String)
        /// A file this command placed before, still of its recorded size: ask the server.
        case probe(CompletionStore.Record, path: String)
    }

    /// From this many URLs on, the output directory is listed once and a name it does not hold
    /// is not looked at (DECISIONS 210): a rerun into an emptied directory made one `lstat` per
    /// URL before the first download began. Below it a listing of a large directory could cost
    /// more than the look-ups.
    static let listingThreshold = 256

    /// The names in a directory, read once: none when it does not exist, nil when it cannot be
    /// read whole (then every name is looked at). Kept lower-cased and compared by Swift's
    /// canonical equivalence, so a name another file system would match (case-insensitive,
    /// another normalisation) is looked at too: never reported missing when it is there.
    struct DirectoryListing: Sendable {
        let names: Set<String>?

        /// Not read (a short list): every name is looked at.
        static let unread = DirectoryListing(names: nil)

        private init(names: Set<String>?) { self.names = names }

        init(_ directory: String) {
            var found = Set<String>()
            names = Self.eachName(in: directory) { found.insert($0.lowercased()); return true } ? found : nil
        }

        /// Whether `directory` holds no entry (or does not exist); nil when it cannot be read.
        /// Stops at the first name: a directory of many files is not read whole to say so.
        static func isEmpty(_ directory: String) -> Bool? {
            var empty = true
            return eachName(in: directory) { _ in empty = false; return false } ? empty : nil
        }

        /// Calls `body` with each name but `.` and `..` until it returns false. False when the
        /// directory could not be read to that point (a missing one reads as empty).
        private static func eachName(in directory: String, _ body: (String) -> Bool) -> Bool {
            guard let dir = opendir(directory) else { return errno == ENOENT }
            defer { closedir(dir) }
            while true {
                // readdir's nil is the end, or an error when it sets errno: a listing cut short
                // must not say the rest is missing.
                errno = 0
                guard let entry = readdir(dir) else { return errno == 0 }
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
                }
                if name != "." && name != "..", !body(name) { return true }
            }
        }

        /// False only when the listing was read whole and has no such name in any case.
        func mayHold(_ name: String) -> Bool { names?.contains(name.lowercased()) ?? true }
    }

    /// What to do with the download of `text` (`url` parses it, asked only when needed), given
    /// the journal's `records` of the output directory and, for a long list, its `listing`.
    static func decision(_ text: String, url: () -> URL?, _ plan: RunPlan, _ records: CompletionIndex,
                         listing: DirectoryListing = .unread) -> Decision {
        // Hashing for the journal only when it holds records: a first run of a long list looks
        // nothing up (decision 41).
        let record = records.isEmpty ? nil : records[ResumeStore.key(url: text, outputDirectory: plan.outputDirectory)]
        switch plan.existingFiles {
        case .replace:
            return .run
        case .skip:
            // The name this command gave the URL's file before (a Content-Disposition name is
            // known only from a response), else the URL's.
            guard let name = record?.name ?? url().map(OutputNaming.sanitizedName(for:)) else { return .run }
            guard listing.mayHold(name) else { return .run }
            let path = plan.outputDirectory + "/" + name
            guard FileManager.default.fileExists(atPath: path) else { return .run }
            return .skip("skipped \(Redaction.redactURL(text)): '\(path)' exists (--no-clobber)")
        case .keepBoth:
            guard let record, listing.mayHold(record.name) else { return .run }
            let path = plan.outputDirectory + "/" + record.name
            return fileSize(path) == record.size ? .probe(record, path: path) : .run
        }
    }

    /// The size of the file at `path` itself (a symbolic link is not followed). One `lstat`:
    /// `FileManager.attributesOfItem` also looked up the owner's and group's names and the
    /// extended attributes, a dozen system calls per placed file.
    static func fileSize(_ path: String) -> Int64? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return Int64(st.st_size)
    }
}

extension Runner {
    /// Remembers a placed file for the next run's "already complete" check (not for the demo).
    /// `size` when the caller wrote the bytes itself (no `lstat` in a large directory).
    /// Called on `session`'s delegate queue, inside a batch of completions: the journal's
    /// lines are written by one block queued behind that batch, which holds the run open
    /// (`group`) until they are written.
    func recordCompletion(_ task: TransferDownloadTask, in session: TransferSession, path: String, size known: Int64? = nil) {
        guard let completions, let response = task.response, let size = known ?? AlreadyComplete.fileSize(path) else { return }
        let record = CompletionStore.Record(name: PartialFileName.lastComponent(path), size: size,
                                            entityTag: response.value(forHTTPHeaderField: "ETag"),
                                            lastModified: response.value(forHTTPHeaderField: "Last-Modified"))
        guard completions.append(record, url: task.originalRequest.url.absoluteString) else { return }
        group.enter()
        session.delegateQueue.async { [self] in
            if let problem = completions.flush() { notice(problem) }
            group.leave()
        }
    }
}
