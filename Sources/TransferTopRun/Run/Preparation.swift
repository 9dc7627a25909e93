import BackgroundWire
import Foundation
import TransferKit

/// Turns options into a plan, checking everything on disk first (so a bad path is a usage
/// error before any transfer starts).
package enum Preparation {
    package static func plan(_ o: Options) throws -> RunPlan {
        try Preflight.checkDistinctPaths(o)
        let out = try outputDirectory(o.outputDirectory)
        try Preflight.checkUpload(o.upload)
        try Preflight.checkStreamedUpload(o)
        try Preflight.checkForm(o.form)
        try Preflight.checkCACertificate(o.caCertificate)
        try Preflight.checkNetrc(o.netrc)
        try Preflight.checkClientCertificate(o.clientCertificate)
        try Preflight.checkCookies(files: o.cookieFiles, jar: o.cookieJar)
        var plan: RunPlan
        // An upload's list is its tasks (read by `inputURLs`); a download list streams as text.
        let uploads = o.job == nil && (o.upload != nil || !o.form.isEmpty)
        if let job = o.job {
            plan = try JobFile.load(job, outputDirectory: out, defaults: o)
            plan.sessions[0].tasks += try o.urls.map { t throws(UsageError) in TaskPlan(kind: .download, url: try URLCheck.checkURL(t)) }
        } else if uploads {
            plan = try RunPlan.from(o, urls: try inputURLs(o), outputDirectory: out)
        } else {
            plan = try RunPlan.from(o, urls: try o.urls.map { t throws(UsageError) in try URLCheck.checkURL(t) },
                                    outputDirectory: out)
        }
        // Repeats are dropped from the tasks first, then from the list as it is read: the
        // list's check goes on from the tasks' (a URL given both ways is downloaded once).
        var seen = Array(repeating: FirstOccurrences(), count: plan.sessions.count)
        var dropped = plan.sessions.indices.map { plan.sessions[$0].dropDuplicateDownloads(seen: &seen[$0]) }
        if !uploads, !o.inputFiles.isEmpty {
            plan.sessions[0].downloadURLs = try inputFileURLs(o, seen: &seen[0], repeats: &dropped[0])
        }
        if plan.sessions.allSatisfy({ $0.tasks.isEmpty && $0.downloadURLs.isEmpty }) { throw UsageError("nothing to do: no URLs found") }
        for (i, count) in dropped.enumerated() where count > 0 {
            Output.shared.line("note: \(count) URL(s) listed more than once in session '\(plan.sessions[i].name)' are downloaded once")
        }
        plan.replaceExports = o.force
        plan.applyUserAgent(o.userAgent)
        if o.csv != nil || o.har != nil {  // every destination's name: only when it matters
            let downloads = Preflight.downloadDestinations(plan)
            try Preflight.checkExport(o.csv, option: "--csv", force: o.force, downloads: downloads)
            try Preflight.checkExport(o.har, option: "--har", force: o.force, downloads: downloads)
        }
        return plan
    }

    static func inputURLs(_ o: Options) throws(UsageError) -> [URL] {
        let urls = try o.urls.map { t throws(UsageError) in try URLCheck.checkURL(t) }
        return try urls + inputFileURLs(o).map { URL(string: $0)! }
    }

    /// The URLs of every `--input-file`, each checked (every bad line reported by number).
    package static func inputFileURLs(_ o: Options) throws(UsageError) -> [String] {
        var none = FirstOccurrences(enabled: false)
        var repeats = 0
        return try inputFileURLs(o, seen: &none, repeats: &repeats)
    }

    /// The same, without the URLs `seen` has (counted in `repeats`) when it is given.
    static func inputFileURLs(_ o: Options, seen: inout FirstOccurrences, repeats: inout Int) throws(UsageError) -> [String] {
        var urls: [String] = []
        for file in o.inputFiles {
            let shown = SafeQuote.quote(file)
            let text = try TextFile.read(file, "input file")
            let before = urls.count + repeats
            urls += try InputFile.parseURLs(in: text, file: shown, seen: &seen, repeats: &repeats)
            // An empty list is most often a generator that failed: said, not run as nothing.
            if urls.count + repeats == before { throw UsageError("input file '\(shown)' lists no URLs") }
        }
        return urls
    }

    /// The absolute output directory, created if missing; it must be writable.
    static func outputDirectory(_ given: String?) throws(UsageError) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let raw = given ?? cwd
        let path = AbsolutePath.of(raw, in: cwd)
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw UsageError("cannot create output directory '\(raw)': \(DirectoryProblem.reason(creating: path, error))")
            }
        } else if !isDir.boolValue {
            throw UsageError("output directory '\(raw)' is not a directory")
        }
        if access(path, W_OK | X_OK) != 0 { throw UsageError("output directory '\(raw)' is not writable") }
        return path
    }
}
