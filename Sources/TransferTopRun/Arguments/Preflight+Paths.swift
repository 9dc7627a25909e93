import Foundation
import TransferKit

extension Preflight {
    /// No two outputs of a run (`--csv`, `--har`, `-c`, `--log-file`, `-o`) are one path, and
    /// none is a file the run reads: one would overwrite the other after the transfers, or
    /// the run would replace its own input. `-b` and `-c` may name one file (curl's idiom).
    static func checkDistinctPaths(_ o: Options) throws(UsageError) {
        let outputs: [(String, String?)] = [("--csv", o.csv), ("--har", o.har), ("--cookie-jar", o.cookieJar),
                                            ("--log-file", o.logFile), ("--output-dir", o.outputDirectory)]
        var inputs: [(String, String?)] = [("--upload", o.upload), ("--job", o.job), ("--netrc-file", o.netrc?.file),
                                           ("--cacert", o.caCertificate)]
        inputs += o.inputFiles.map { ("--input-file", $0) } + o.form.compactMap(\.path).map { ("--form", $0) }
        // Devices and pipes are written into: two outputs may share one (`/dev/null`).
        let namedPaths = outputs.compactMap { option, path in path.map { (option, $0) } }.filter { !StreamTarget.isStream($0.1) }
        let readPaths = inputs.compactMap { option, path in path.flatMap { $0 == "-" ? nil : (option, $0) } }
        // One path alone names no other (resolving it through Foundation's URL was a
        // hundredth of a one-URL run's work).
        guard !namedPaths.isEmpty, namedPaths.count + readPaths.count > 1 else { return }
        let named = namedPaths.map { ($0.0, $0.1, canonical($0.1)) }
        let read = readPaths.map { ($0.0, $0.1, canonical($0.1)) }
        for (i, a) in named.enumerated() {
            for b in named[(i + 1)...] + read where a.2 == b.2 {
                throw UsageError("\(a.0) '\(SafeQuote.quote(a.1))' and \(b.0) '\(SafeQuote.quote(b.1))' name the same file")
            }
        }
    }

    /// The absolute path with `.`, `..` and symbolic links of the parts that exist resolved.
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: absolutePath(path)).resolvingSymlinksInPath().path
    }
}
