/// Checks that resume data may be acted on: where its partial file is, and that it is long
/// enough. Pure: the file-size lookup is injected (`nil` = no such file).
extension ResumeData {
    /// - Parameters:
    ///   - stateDirectory: the absolute directory the library owns for partial files.
    ///   - fileSize: the size of a file, or nil when it does not exist. Called only for a path
    ///     that passed the directory check, so forged data cannot even probe other paths.
    public func validate(stateDirectory: String, fileSize: (String) -> Int64?) throws(ResumeDataError) {
        guard let path = Self.partialFile(partialFilePath, isDirectlyInside: stateDirectory) else {
            throw .pathOutsideStateDirectory(path: partialFilePath)
        }
        guard let size = fileSize(path) else { throw .partialFileMissing(path: path) }
        guard size >= bytesReceived else { throw .partialFileTooShort(expected: bytesReceived, actual: size) }
    }

    /// The canonical path when `path` names a file directly inside `directory`, else nil.
    ///
    /// Canonicalisation is on the string only: `//` and `.` are removed. A `..` component is
    /// refused outright rather than resolved, because `a/link/..` is not `a` when `link` is a
    /// symlink, and checking that would need the file system.
    public static func partialFile(_ path: String, isDirectlyInside directory: String) -> String? {
        guard let file = canonical(path), let dir = canonical(directory), file.count == dir.count + 1,
              Array(file.prefix(dir.count)) == dir
        else { return nil }
        return "/" + file.joined(separator: "/")
    }

    /// The components of an absolute path without empty and `.` parts; nil for a relative path,
    /// a `..` component or a NUL byte.
    static func canonical(_ path: String) -> [Substring]? {
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { return nil }
        let parts = path.split(separator: "/").filter { $0 != "." }
        return parts.contains("..") ? nil : parts
    }
}
