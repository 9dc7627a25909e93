import Foundation
import TransferKit
import TransferTopUI

/// Checks made on disk after parsing and before any transfer starts: every input
/// the run will read and every output it will write, so a mistake is a usage error (exit 2)
/// now, not a surprise after a long download.
package enum Preflight {
    /// This program's file (themes are looked up beside it, as the monitor does).
    package static func executablePath() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
    }

    /// `--upload` (and a job's upload `file`) must be a readable regular file (a directory used to end "cancelled").
    static func checkUpload(_ path: String?) throws(UsageError) {
        guard let path, path != "-" else { return }
        let shown = SafeQuote.quote(path)
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw UsageError("'\(shown)' is a directory, not a file to upload")
        }
        if !FileManager.default.isReadableFile(atPath: path) { throw UsageError("cannot read upload file '\(shown)'") }
    }

    /// A FIFO, device or socket given to `-T` is read once, as a stream (as `-T -`): one URL.
    static func checkStreamedUpload(_ o: Options) throws(UsageError) {
        guard let path = o.upload, path != "-", FileKind.isStream(path), let kind = FileKind.of(path) else { return }
        if o.urls.count != 1 || !o.inputFiles.isEmpty {
            throw UsageError("--upload '\(SafeQuote.quote(path))' is \(kind): it is read once, so give exactly one URL")
        }
    }

    /// `--cert` and `--key` must be readable PEM files (libcurl's own message would only say
    /// "could not load PEM client certificate", after the connection was made).
    static func checkClientCertificate(_ c: ClientCertificate?) throws(UsageError) {
        guard let c else { return }
        for (path, option, marker) in [(c.file, "--cert", "-----BEGIN CERTIFICATE-----")] + (c.key.map { [($0, "--key", "PRIVATE KEY-----")] } ?? []) {
            try requireRegular(path, option)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue,
                  let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("cannot read \(option) file '\(SafeQuote.quote(path))'")
            }
            if data.range(of: Data(marker.utf8)) == nil {
                throw UsageError("\(option) file '\(SafeQuote.quote(path))' holds no PEM \(option == "--cert" ? "certificate" : "private key") (expected \(marker))")
            }
        }
    }

    /// `-b FILE` must be readable; `-c FILE` must be a file (not a directory) in a directory
    /// that exists and can be written, checked before any transfer (curl finds out at the end).
    static func checkCookies(files: [String], jar: String?) throws(UsageError) {
        let fm = FileManager.default
        for path in files {
            var isDir: ObjCBool = false
            if !fm.fileExists(atPath: path, isDirectory: &isDir) || isDir.boolValue || !fm.isReadableFile(atPath: path) {
                throw UsageError("cannot read cookie file '\(SafeQuote.quote(path))' (a value without '=' is a file name)")
            }
            // Each session reads the file when it starts: a FIFO would block it, or be empty
            // for the second. A device such as /dev/null reads at once.
            if let kind = FileKind.of(path), kind == .fifo || kind == .socket {
                throw UsageError("cookie file '\(SafeQuote.quote(path))' is \(kind); -b reads a regular file")
            }
        }
        guard let jar else { return }
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: jar, isDirectory: &isDir), isDir.boolValue {
            throw UsageError("--cookie-jar '\(SafeQuote.quote(jar))' is a directory")
        }
        // `-c /dev/null` (curl's idiom for a session that keeps no cookies) is written into.
        if try isWritableStream(jar, "the cookie jar '\(SafeQuote.quote(jar))'") { return }
        let dir = (jar as NSString).deletingLastPathComponent.isEmpty ? "." : (jar as NSString).deletingLastPathComponent
        if !fm.isWritableFile(atPath: dir) { throw UsageError("cannot write the cookie jar '\(SafeQuote.quote(jar))': its directory is not writable") }
    }

    /// Every `--form` file must be a readable regular file too: a form is sent with its
    /// length, taken from the file's size (a FIFO or device has none, and would block).
    static func checkForm(_ fields: [FormField]) throws(UsageError) {
        for path in fields.compactMap(\.path) {
            try checkUpload(path)
            if let kind = FileKind.of(path), kind != .regular {
                throw UsageError("--form file '\(SafeQuote.quote(path))' is \(kind); a form sends regular files (their length goes first)")
            }
        }
    }

    /// `--cacert` must hold at least one PEM certificate; libcurl would otherwise fail every
    /// https task later with a vaguer message, or an http-only run would hide the mistake.
    static func checkCACertificate(_ path: String?) throws(UsageError) {
        guard let path else { return }
        let shown = SafeQuote.quote(path)
        try requireRegular(path, "--cacert")
        guard FileManager.default.isReadableFile(atPath: path), let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read CA file '\(shown)'")
        }
        let marker = Data("-----BEGIN CERTIFICATE-----".utf8)
        if data.range(of: marker) == nil {
            throw UsageError("CA file '\(shown)' holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)")
        }
    }

    /// A file read here and again when connections are made (`--cacert`, `--cert`, `--key`)
    /// must be a regular file: a FIFO would block this check, then the transfer.
    static func requireRegular(_ path: String, _ option: String) throws(UsageError) {
        guard let kind = FileKind.of(path), kind != .regular, kind != .directory else { return }
        throw UsageError("\(option) file '\(SafeQuote.quote(path))' is \(kind), not a regular file")
    }

    /// `--csv` / `--har`: the parent directory is writable, the file does not exist (unless
    /// `--force`) and is not where a download of this run would go.
    static func checkExport(_ path: String?, option: String, force: Bool, downloads: Set<String>) throws(UsageError) {
        guard let path else { return }
        let absolute = absolutePath(path)
        let shown = SafeQuote.quote(path)
        if try isWritableStream(absolute, "\(option) '\(shown)'") { return }
        try refuseSocket(absolute, "\(option) '\(shown)'")
        let parent = (absolute as NSString).deletingLastPathComponent
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDir), isDir.boolValue,
              access(parent, W_OK | X_OK) == 0 else {
            throw UsageError("\(option) '\(shown)': the directory is missing or not writable")
        }
        if downloads.contains(absolute) { throw UsageError("\(option) '\(shown)' is where a download of this run goes") }
        try refuseExisting(absolute, "\(option) '\(shown)'", force: force)
    }

    /// An output file's name that is taken: a directory always, anything else without
    /// `--force` (a link to nothing too: `fileExists` says no, yet the final link of the file
    /// would fail at the end, after the run).
    package static func refuseExisting(_ path: String, _ named: String, force: Bool) throws(UsageError) {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { throw UsageError("\(named) is a directory") }
            if !force { throw UsageError("\(named) exists (pass --force to replace it)") }
        } else if !force {
            var st = stat()
            if lstat(path, &st) == 0 { throw UsageError("\(named) exists, a link to nothing (pass --force to replace it)") }
        }
    }

    /// An output that names a device or a pipe (`StreamTarget`) is written into, not replaced:
    /// it needs neither --force nor a writable directory, only to be writable itself. True when
    /// `path` is one; `named` starts the error.
    package static func isWritableStream(_ path: String, _ named: String) throws(UsageError) -> Bool {
        guard StreamTarget.isStream(path) else { return false }
        if access(path, W_OK) != 0 { throw UsageError("\(named) is not writable") }
        return true
    }

    /// A socket is neither written into nor replaced (a rename over it, with --force, would
    /// take the name from whatever listens there).
    package static func refuseSocket(_ path: String, _ named: String) throws(UsageError) {
        if FileKind.of(path) == .socket { throw UsageError("\(named) is a socket; an export goes to a file, a pipe or a device") }
    }

    package static func absolutePath(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        return AbsolutePath.of(path, in: cwd)
    }

    /// The first names downloads of `plan` would take (before any " (1)" suffix).
    static func downloadDestinations(_ plan: RunPlan) -> Set<String> {
        let urls = plan.sessions.flatMap { s in
            s.tasks.filter { $0.kind == .download }.map(\.url) + s.downloadURLs.compactMap(URL.init(string:))
        }
        return Set(urls.map { plan.outputDirectory + "/" + OutputNaming.sanitizedName(for: $0) })
    }

    /// keys.toml: one bad line is an error naming file and line, before any transfer (it used
    /// to turn the whole file off silently once the monitor was up).
    package static func checkKeyBindings(environment: [String: String]) throws(UsageError) {
        guard let (path, text) = try keyBindingsText(environment: environment) else { return }
        do { _ = try KeyBindingParser.parse(text, file: path) } catch { throw UsageError("\(error)") }
    }

    /// The key bindings file and its text; nil when there is none. One that is there but cannot
    /// be read as text (a directory, no permission, not UTF-8) is an error saying so, not the
    /// default keys in silence.
    package static func keyBindingsText(environment: [String: String]) throws(UsageError) -> (path: String, text: String)? {
        guard let path = KeyBindingParser.configPath(environment: environment),
              FileManager.default.fileExists(atPath: path) else { return nil }
        return (path, try TextFile.read(path, "key bindings"))
    }

    /// `--theme`: a file that exists but is not a valid theme says what is wrong (it used to
    /// say "not found" for a binary file), before any transfer.
    package static func checkTheme(_ nameOrPath: String, environment: [String: String]) throws(UsageError) {
        let locator = ThemeLocator(environment: environment, executablePath: executablePath(),
                                   currentDirectory: FileManager.default.currentDirectoryPath)
        if let problem = ThemeLoader.problem(nameOrPath, locator: locator) { throw UsageError(problem) }
    }
}
