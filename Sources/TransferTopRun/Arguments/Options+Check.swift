import Foundation
import TransferModel

/// The ranges the command line, job files and the daemon's socket share.
package enum OptionBounds {
    package static let connectionsPerHost = 1...1000
    package static let segments = 1...64
    package static let segmentSize: ClosedRange<Int64> = 64 << 10...4 << 30
    package static let fps = 1...120
}

extension Options {
    /// What `--background` cannot take: the checks of the command that submits, and of the
    /// daemon that receives, so a client of its own making cannot slip one past.
    package func checkBackgroundSubmission() throws(UsageError) {
        if upload == "-" { throw UsageError("--background cannot read --upload - (standard input ends with this command)") }
        if let up = upload, up != "-", FileKind.isStream(up), let kind = FileKind.of(up) {
            throw UsageError("--background cannot read --upload '\(SafeQuote.quote(up))': it is \(kind), read once by this command")
        }
        if segments != nil { throw UsageError("--background does not take --segments yet (run the segmented upload here)") }
        if job != nil { throw UsageError("--background does not take --job yet (give the URLs or -i FILE)") }
        if prometheus != nil { throw UsageError("--background does not take --prometheus (the daemon serves no metrics port)") }
        if otlp != nil { throw UsageError("--background does not take --otlp (the daemon exports to TRANSFERTOP_OTLP, set where it starts)") }
        if slo != nil || (summary ?? .tasks) != .tasks {
            throw UsageError("--background does not take --slo or --summary (the run ends in the daemon, not in this command)")
        }
    }

    /// Checks a value that did not come through the command line's parser (the daemon reads it
    /// from its socket, where any program of the user's may write): every number in the range
    /// the parser allows, every text the parser refuses refused with the parser's message, and
    /// every path absolute (a daemon has no working directory of the user's to resolve one
    /// against: a relative one would be made under `/`).
    package func checkAsReceived() throws(UsageError) {
        func number(_ n: Int, _ option: String, _ range: ClosedRange<Int>) throws(UsageError) {
            _ = try OptionValues.integer(String(n), option, range: range)
        }
        try checkBackgroundSubmission()
        try number(maxConnectionsPerHost, "--max-connections-per-host", OptionBounds.connectionsPerHost)
        try OptionValues.seconds(requestTimeout, "--request-timeout")
        try OptionValues.seconds(resourceTimeout, "--resource-timeout")
        try number(fps, "--fps", OptionBounds.fps)
        if let segments { try number(segments, "--segments", OptionBounds.segments) }
        if let segmentSize { _ = try OptionValues.byteSize(String(segmentSize), "--segment-size", range: OptionBounds.segmentSize) }
        if let userAgent { _ = try OptionValues.userAgent(userAgent) }
        if let pinnedPublicKeys { _ = try OptionValues.pins(pinnedPublicKeys) }
        if let logLevel { _ = try OptionValues.logLevel(logLevel) }
        if let background { _ = try BackgroundName.check(background, "--background") }
        if !inputFiles.isEmpty { throw UsageError("a submission carries its URLs, not --input-file names (the client reads the lists)") }
        guard let outputDirectory else { throw UsageError("a submission names its --output-dir (an absolute path)") }
        var paths: [(String, String)] = [("--output-dir", outputDirectory)]
        paths += [caCertificate.map { ("--cacert", $0) }, upload.map { ("--upload", $0) }, cookieJar.map { ("--cookie-jar", $0) },
                  netrc?.file.map { ("--netrc-file", $0) }, clientCertificate.map { ("--cert", $0.file) },
                  clientCertificate?.key.map { ("--key", $0) }, csv.map { ("--csv", $0) }, har.map { ("--har", $0) },
                  logFile.map { ("--log-file", $0) }].compactMap { $0 }
        paths += cookieFiles.map { ("--cookie", $0) }
        for field in form {
            switch field {
            case .value: break
            case .file(_, let path, _, _), .contents(_, let path, _): paths.append(("--form", path))
            }
        }
        for (option, path) in paths where !path.hasPrefix("/") {
            throw UsageError("\(option) must be an absolute path in a submission, not '\(SafeQuote.quote(path, limit: 60))'")
        }
    }
}
