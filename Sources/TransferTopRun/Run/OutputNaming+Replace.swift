import Foundation

extension OutputNaming {
    /// `--clobber`: moves `source` onto the name derived from `url`, replacing a file of that
    /// name atomically (`rename`), so a reader sees the old file or the new one, never a mix.
    /// Across file systems the bytes are copied to a hidden temporary name in `directory` first.
    public static func replace(_ source: URL, for url: URL, in directory: String) throws -> String {
        try replace(source, named: sanitizedName(for: url), in: directory)
    }

    /// `replace(_:for:in:)` with the name already chosen (and safe).
    public static func replace(_ source: URL, named name: String, in directory: String) throws -> String {
        let target = directory + "/" + name
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDir), isDir.boolValue {
            throw CLIError("cannot replace '\(target)': it is a directory")
        }
        if rename(source.path, target) == 0 { return target }
        guard errno == EXDEV else { throw CLIError("cannot write '\(target)': \(String(cString: strerror(errno)))") }
        let temp = directory + "/.transfertop-\(getpid())-\(UUID().uuidString).part"
        try FileManager.default.copyItem(atPath: source.path, toPath: temp)
        guard rename(temp, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw CLIError("cannot write '\(target)': \(reason)")
        }
        unlink(source.path)
        return target
    }
}
