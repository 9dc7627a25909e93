/// Why resume data was refused. Each case has a sentence a user can act on.
public enum ResumeDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes end before the envelope does (a partial write or copy).
    case truncated
    /// Not TransferKit resume data at all (wrong magic, another format).
    case notResumeData
    /// Written by a newer (or unknown) version of the format.
    case unsupportedVersion(Int)
    /// The payload does not match its SHA-256: corrupted or edited.
    case integrityCheckFailed
    /// Well-formed JSON with a missing or invalid field; the string says which.
    case malformed(String)
    case partialFileMissing(path: String)
    case partialFileTooShort(expected: Int64, actual: Int64)
    /// The partial file is not directly inside the library's state directory.
    case pathOutsideStateDirectory(path: String)
    /// Only GET downloads can be resumed.
    case notGET
    /// Neither ETag nor Last-Modified: a resumed download could not be told from a changed one.
    case noValidator

    public var description: String {
        switch self {
        case .truncated:
            return "The resume data is truncated: it ends before its end marker. It was probably cut off while being written or copied."
        case .notResumeData:
            return "This is not TransferKit resume data (its \"TKRD\" magic is missing)."
        case .unsupportedVersion(let v):
            return "The resume data has format version \(v); this build reads version \(ResumeData.formatVersion) only."
        case .integrityCheckFailed:
            return "The resume data is corrupted: its SHA-256 check does not match its contents."
        case .malformed(let what):
            return "The resume data is malformed: \(what)."
        case .partialFileMissing(let path):
            return "The partial download \(path) no longer exists; start the download again."
        case .partialFileTooShort(let expected, let actual):
            return "The partial download has \(actual) bytes but the resume data says \(expected) were received; start the download again."
        case .pathOutsideStateDirectory(let path):
            return "The resume data points at \(path), which is not directly inside the download state directory; refusing to touch it."
        case .notGET:
            return "Only GET downloads can be resumed."
        case .noValidator:
            return "The resume data has neither an ETag nor a Last-Modified date, so a changed file could not be detected."
        }
    }

    /// The error a task created from this resume data completes with.
    public var transferError: TransferError {
        TransferError(.cannotDecodeResumeData, description)
    }
}
