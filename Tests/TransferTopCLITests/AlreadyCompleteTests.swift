import Foundation
import Testing
import TransferModel
@testable import TransferTopRun

/// `AlreadyComplete`: a long list's look-ups are shared among the cores and still decide every
/// URL once, in the list's order.
@Suite struct AlreadyCompleteTests {
    @Test func everyIndexIsDecidedOnceInOrder() {
        for count in [0, 1, 1_999, 2_000, 5_003] {
            let seen = Locked([Int](repeating: 0, count: count))
            let decisions = AlreadyComplete.decideAll(count) { k in
                seen.withLock { $0[k] += 1 }
                return k % 3 == 0 ? .skip("\(k)") : .run
            }
            #expect(decisions.count == count)
            #expect(seen.withLock { $0.allSatisfy { $0 == 1 } })
            let skipped = decisions.compactMap { d -> String? in if case .skip(let s) = d { return s } else { return nil } }
            #expect(skipped == stride(from: 0, to: count, by: 3).map(String.init))
        }
    }

    /// `--no-clobber` over a list long enough to be shared among the cores: the URLs whose
    /// files exist are dropped, in order, with a note each, and the rest keep their order.
    @Test func noClobberDropsTheURLsWhoseFilesExistFromALongList() async throws {
        let dir = NSTemporaryDirectory() + "already-complete-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let urls = (0..<3_000).map { "http://127.0.0.1:9/f\($0)" }
        for k in stride(from: 0, to: urls.count, by: 7) {
            #expect(FileManager.default.createFile(atPath: "\(dir)/f\(k)", contents: Data("x".utf8)))
        }
        var session = SessionPlan(name: "s")
        session.downloadURLs = urls
        var plan = RunPlan(sessions: [session], outputDirectory: dir)
        plan.existingFiles = .skip
        let (filtered, notes) = await AlreadyComplete.filter(plan, store: nil)
        let kept = urls.indices.filter { $0 % 7 != 0 }.map { urls[$0] }
        #expect(filtered.sessions[0].downloadURLs == kept)
        #expect(notes.count == (urls.count + 6) / 7)
        #expect(notes.first == "skipped http://127.0.0.1:9/f0: '\(dir)/f0' exists (--no-clobber)")
        #expect(notes.last == "skipped http://127.0.0.1:9/f2996: '\(dir)/f2996' exists (--no-clobber)")
    }

    /// A long list's rerun lists the output directory once: a recorded file that is not there
    /// is run again without a look at it, one that is there of its recorded size is asked about.
    @Test func aListedDirectoryAnswersForTheFilesItDoesNotHold() throws {
        let dir = NSTemporaryDirectory() + "already-complete-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(FileManager.default.createFile(atPath: dir + "/here.bin", contents: Data("x".utf8)))
        let plan = RunPlan(sessions: [], outputDirectory: dir)
        let here = "http://127.0.0.1:9/here.bin", gone = "http://127.0.0.1:9/gone.bin"
        let records = CompletionIndex(Array([
            CompletionIndexTests.line(ResumeStore.key(url: here, outputDirectory: dir), "here.bin", 1),
            CompletionIndexTests.line(ResumeStore.key(url: gone, outputDirectory: dir), "gone.bin", 1),
        ].map { $0 + "\n" }.joined().utf8))
        let listing = AlreadyComplete.DirectoryListing(dir)
        #expect(listing.names == ["here.bin"])
        #expect(!listing.mayHold("gone.bin"))
        // Another case may be the same file on another file system: looked at, not skipped.
        #expect(listing.mayHold("HERE.bin"))
        for l in [listing, .unread] {
            guard case .probe(let record, let path) = AlreadyComplete.decision(here, url: { URL(string: here) }, plan, records, listing: l) else {
                Issue.record("a recorded file of its size is asked about")
                continue
            }
            #expect(record.name == "here.bin" && path == dir + "/here.bin")
            guard case .run = AlreadyComplete.decision(gone, url: { URL(string: gone) }, plan, records, listing: l) else {
                Issue.record("a recorded file that is gone runs again")
                continue
            }
        }
        // A directory that does not exist holds nothing; one that cannot be listed (a path
        // through a file) answers for nothing: every name is looked at.
        let missing = AlreadyComplete.DirectoryListing(dir + "/no-such-directory")
        #expect(missing.names == [] && !missing.mayHold("here.bin"))
        let unreadable = AlreadyComplete.DirectoryListing(dir + "/here.bin/sub")
        #expect(unreadable.names == nil && unreadable.mayHold("anything"))
    }

    /// A long list into an empty output directory keeps every URL and says nothing, whatever
    /// the journal holds, without reading the journal: there is no file to keep. A directory
    /// with a file in it has its journal read.
    @Test func aLongListIntoAnEmptyDirectoryKeepsEveryURLWithoutReadingTheJournal() async throws {
        let dir = NSTemporaryDirectory() + "already-complete-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var session = SessionPlan(name: "s")
        session.downloadURLs = (0..<AlreadyComplete.listingThreshold).map { "http://127.0.0.1:9/f\($0)" }
        for target in [dir + "/out", dir + "/not-made-yet"] {
            // A record for every URL of the list, in a journal of its own.
            let store = CompletionStore(directory: dir + "/state-\(target.hasSuffix("out") ? "a" : "b")")
            let journal = CompletionStore.Journal(store: store, outputDirectory: target)
            for (n, url) in session.downloadURLs.enumerated() {
                _ = journal.append(.init(name: "f\(n)", size: 1, entityTag: nil, lastModified: nil), url: url)
            }
            journal.flush()
            for existing in [ExistingFiles.skip, .keepBoth] {
                var plan = RunPlan(sessions: [session], outputDirectory: target)
                plan.existingFiles = existing
                let (filtered, notes) = await AlreadyComplete.filter(plan, store: store)
                #expect(filtered == plan)
                #expect(notes.isEmpty)
            }
            #expect(store.indexes.withLock { $0.isEmpty }, "the journal was not read")
        }
        // One file (not one of the list's): the journal is read and every URL runs.
        #expect(FileManager.default.createFile(atPath: dir + "/out/other", contents: Data("x".utf8)))
        let store = CompletionStore(directory: dir + "/state-a")
        var plan = RunPlan(sessions: [session], outputDirectory: dir + "/out")
        plan.existingFiles = .keepBoth
        let (filtered, notes) = await AlreadyComplete.filter(plan, store: store)
        #expect(filtered == plan && notes.isEmpty)
        #expect(!store.indexes.withLock { $0.isEmpty }, "the journal was read")
    }
}
