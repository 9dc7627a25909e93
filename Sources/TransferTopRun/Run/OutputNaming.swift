import Foundation
import TransferModel
import TransferKit

/// Where a finished download goes: pure functions, tested by tables.
public enum OutputNaming {
    /// The last path component of `url`, made safe as one file name (TransferModel's
    /// `PartialFileName`: the partial's hidden name and the final name follow one rule).
    public static func sanitizedName(for url: URL) -> String { PartialFileName.baseName(for: url) }

    public static func sanitize(_ raw: String) -> String { PartialFileName.sanitize(raw) }

    /// `name`, or `stem (1).ext`, `stem (2).ext`… : the first that `exists` says is free.
    public static func uniqueName(_ name: String, exists: (String) -> Bool) -> String {
        uniqueName(name, from: 1, exists: exists).name
    }

    /// `name` if free, else the first free `stem (n).ext` with n ≥ `from`, and that n (0 for
    /// the plain name).
    static func uniqueName(_ name: String, from start: Int, exists: (String) -> Bool) -> (name: String, n: Int) {
        if !exists(name) { return (name, 0) }
        let (stem, ext) = splitExtension(name)
        var n = max(1, start)
        while true {
            let candidate = "\(stem) (\(n))\(ext)"
            if !exists(candidate) { return (candidate, n) }
            n += 1
        }
    }

    /// `archive.tar.gz` → (`archive.tar`, `.gz`); `README` → (`README`, ``).
    static func splitExtension(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }

    /// Moves `source` into `directory` under a free name derived from `url`, atomically with
    /// respect to other names: `link`+`unlink` never replaces an existing file (rename would),
    /// and across file systems the bytes are copied to a private temporary name first.
    public static func place(_ source: URL, for url: URL, in directory: String) throws -> String {
        try place(source, named: sanitizedName(for: url), in: directory)
    }

    /// The name of a finished download: the server's Content-Disposition name when it sent one
    /// and `contentDisposition` (aria2's default; wget's `--content-disposition`), made safe by
    /// `ContentDisposition.safeFilename`; otherwise the URL's last path component.
    public static func name(for url: URL, response: TransferResponse?, contentDisposition: Bool) -> String {
        if contentDisposition, let proposed = response?.contentDispositionFilename { return proposed }
        return sanitizedName(for: url)
    }

    /// `place(_:for:in:)` with the name already chosen (and safe). `hints` remembers the
    /// numbers a run has taken, so the search for a free `name (n)` starts after them.
    public static func place(_ source: URL, named base: String, in directory: String,
                             hints: NameHints? = nil) throws -> String {
        try firstFree(base, in: directory, hints: hints) { target in
            // Same file system (partials live beside their destination): one rename.
            if FileRename.withoutReplacing(source.path, target) == 0 { return target }
            if errno == EEXIST { return nil }
            if link(source.path, target) == 0 { unlink(source.path); return target }
            if errno == EEXIST { return nil }
            if errno == EXDEV || errno == EPERM || errno == ENOTSUP || errno == EMLINK {
                return try copyThenLink(source, to: target, directory: directory)
            }
            throw cannotWrite(target)
        }
    }

    /// Writes a finished download held in memory once, straight under a free name derived
    /// from `base` (an unnamed file linked into place: never a partial file under the name).
    /// Nil when the file system cannot make unnamed files or `/proc` is missing: then the
    /// caller takes the temporary-file path (`place`).
    public static func store(_ body: Data, named base: String, in directory: String,
                             hints: NameHints? = nil) throws -> String? {
        guard let file = UnnamedFile(in: directory) else {
            if errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL { return nil }
            throw cannotWrite(directory + "/" + base)
        }
        guard file.write(body) else { throw cannotWrite(directory + "/" + base) }
        var unsupported = false
        let placed = try firstFree(base, in: directory, hints: hints) { target in
            if file.link(as: target) == 0 { return target }
            if errno == EEXIST { return nil }
            if errno == ENOENT || errno == EPERM || errno == EXDEV {  // no /proc, or a refusing fs
                unsupported = true
                return target
            }
            throw cannotWrite(target)
        }
        return unsupported ? nil : placed
    }

    /// Tries `base`, then `stem (n).ext` from the hint on, until `claim` takes a name. `claim`
    /// returns the path it placed the file at, or nil when that name was taken.
    static func firstFree(_ base: String, in directory: String, hints: NameHints?,
                          claim: (String) throws -> String?) throws -> String {
        let fm = FileManager.default
        let key = directory + "/" + base
        for attempt in 0..<1000 {
            // The plain name is tried without looking first (the claim refuses to replace),
            // one lookup less per file in the common case.
            var name = base
            if attempt > 0 {
                let found = uniqueName(base, from: hints?.start(key) ?? 1) { fm.fileExists(atPath: directory + "/" + $0) }
                name = found.name
                hints?.taken(key, found.n)
            }
            if let placed = try claim(directory + "/" + name) { return placed }
        }
        throw CLIError("cannot find a free name for '\(base)' in '\(directory)'")
    }

    static func cannotWrite(_ path: String) -> CLIError {
        CLIError("cannot write '\(path)': \(String(cString: strerror(errno)))")
    }

    /// Copies across file systems to a hidden temporary file in `directory`, then links it
    /// under its final name, so the final name never shows a partial file.
    static func copyThenLink(_ source: URL, to target: String, directory: String) throws -> String {
        let temp = directory + "/.transfertop-\(getpid())-\(UUID().uuidString).part"
        try FileManager.default.copyItem(atPath: source.path, toPath: temp)
        defer { unlink(temp) }
        var candidate = target
        let (stem, ext) = splitExtension((target as NSString).lastPathComponent)
        var n = 0
        while link(temp, candidate) != 0 {
            guard errno == EEXIST else { throw cannotWrite(candidate) }
            n += 1
            candidate = directory + "/\(stem) (\(n))\(ext)"
        }
        return candidate
    }
}

/// The `name (n)` numbers a run has taken per directory and name. Without them the n-th of
/// many URLs with one file name (`small.bin?1` … `small.bin?5000`) tested every lower number
/// again: n²/2 lookups, 26-32 s for 5,000 downloads of 1 KiB. Numbers freed during the run
/// are not reused; the plain name is always tried first.
public final class NameHints: Sendable {
    private let next = Locked<[String: Int]>([:])

    public init() {}

    func start(_ key: String) -> Int { next.withLock { $0[key] ?? 1 } }

    func taken(_ key: String, _ n: Int) {
        guard n > 0 else { return }
        next.withLock { $0[key] = max($0[key] ?? 1, n + 1) }
    }
}

/// A run-time failure with a message for the user (not a usage error).
public struct CLIError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
