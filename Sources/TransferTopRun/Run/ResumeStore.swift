import BackgroundWire
import Foundation
import TransferKit

/// Resume data kept between runs (interrupting keeps work): one private file per
/// (URL, output directory) under `$XDG_STATE_HOME/transfertop/resume/`.
public struct ResumeStore: Sendable {
    public var directory: String

    public init(directory: String) { self.directory = directory }

    /// The default store, or nil when neither XDG_STATE_HOME nor HOME is set.
    public static func standard() -> ResumeStore? {
        StatePaths.stateDirectory(nil).map { ResumeStore(directory: $0 + "/resume") }
    }

    /// The key: SHA-256 of the *redacted* URL and the absolute output directory, so the same
    /// URL downloaded into two directories keeps two separate partial downloads, and no hash
    /// of a password sits in a file name.
    public static func key(url: String, outputDirectory: String) -> String {
        // Made once per placed file and per URL a rerun looks up: one string, sized once.
        var text = Redaction.redactURL(url)
        text.reserveCapacity(text.utf8.count + 1 + outputDirectory.utf8.count)
        text += "\n"
        text += outputDirectory
        return SHA256.hex(utf8: text)
    }

    func path(_ key: String) -> String { directory + "/" + key + ".resume" }

    public func save(_ data: Data, url: String, outputDirectory: String) throws {
        let code = PrivateDirectory.create(directory)
        if code != 0 {
            throw CLIError("cannot create the state directory '\(directory)': \(DirectoryProblem.reason(creating: directory, code: code))")
        }
        let final = path(Self.key(url: url, outputDirectory: outputDirectory))
        let temp = final + ".\(getpid()).tmp"
        // Credentials never reach the disk: the next run takes them from its command line.
        let stored = (try? ResumeData(decoding: data))?.withoutCredentials().encoded() ?? data
        guard FileManager.default.createFile(atPath: temp, contents: stored, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("cannot write resume data to '\(temp)'")
        }
        guard rename(temp, final) == 0 else { unlink(temp); throw CLIError("cannot write resume data to '\(final)'") }
    }

    /// The saved data with this run's credentials put back into its URL; data that cannot be
    /// decoded is returned as it is (the caller reports why it is unusable).
    public func load(url: String, outputDirectory: String) -> Data? {
        guard let data = FileManager.default.contents(atPath: path(Self.key(url: url, outputDirectory: outputDirectory))) else {
            return nil
        }
        guard let decoded = try? ResumeData(decoding: data) else { return data }
        return decoded.restoringCredentials(from: url)?.encoded()
    }

    public func remove(url: String, outputDirectory: String) {
        unlink(path(Self.key(url: url, outputDirectory: outputDirectory)))
    }
}
