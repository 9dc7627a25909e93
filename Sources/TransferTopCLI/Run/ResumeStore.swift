import Foundation
import TransferKit

/// Resume data kept between runs (issue 5 "Interrupting keeps work"): one private file per
/// (URL, output directory) under `$XDG_STATE_HOME/transfertop/resume/`.
public struct ResumeStore: Sendable {
    public var directory: String

    public init(directory: String) { self.directory = directory }

    /// The default store, or nil when neither XDG_STATE_HOME nor HOME is set.
    public static func standard() -> ResumeStore? {
        StatePaths.stateDirectory(nil).map { ResumeStore(directory: $0 + "/resume") }
    }

    /// The key: SHA-256 of the URL and the absolute output directory, so the same URL
    /// downloaded into two directories keeps two separate partial downloads.
    public static func key(url: String, outputDirectory: String) -> String {
        SHA256.hex(Data((url + "\n" + outputDirectory).utf8))
    }

    func path(_ key: String) -> String { directory + "/" + key + ".resume" }

    public func save(_ data: Data, url: String, outputDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let final = path(Self.key(url: url, outputDirectory: outputDirectory))
        let temp = final + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temp, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("cannot write resume data to '\(temp)'")
        }
        guard rename(temp, final) == 0 else { unlink(temp); throw CLIError("cannot write resume data to '\(final)'") }
    }

    public func load(url: String, outputDirectory: String) -> Data? {
        FileManager.default.contents(atPath: path(Self.key(url: url, outputDirectory: outputDirectory)))
    }

    public func remove(url: String, outputDirectory: String) {
        unlink(path(Self.key(url: url, outputDirectory: outputDirectory)))
    }
}
