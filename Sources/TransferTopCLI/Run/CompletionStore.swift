import Foundation
import TransferKit

/// What a run remembers about each file it placed (issue 9), so a rerun of the same command
/// can tell "already complete" from "new version": one small JSON file per (redacted URL,
/// output directory) under `$XDG_STATE_HOME/transfertop/complete/`. No credentials: the key
/// is a hash of the redacted URL and the record holds only the name, size and validators.
public struct CompletionStore: Sendable {
    public struct Record: Codable, Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var entityTag: String?
        public var lastModified: String?
    }

    public var directory: String

    public static func standard() -> CompletionStore? {
        StatePaths.stateDirectory(nil).map { CompletionStore(directory: $0 + "/complete") }
    }

    func path(url: String, outputDirectory: String) -> String {
        directory + "/" + ResumeStore.key(url: url, outputDirectory: outputDirectory) + ".json"
    }

    public func save(_ record: Record, url: String, outputDirectory: String) {
        guard let data = try? JSONEncoder().encode(record) else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let final = path(url: url, outputDirectory: outputDirectory)
        let temp = final + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temp, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temp, final) != 0 { unlink(temp) }
    }

    public func load(url: String, outputDirectory: String) -> Record? {
        FileManager.default.contents(atPath: path(url: url, outputDirectory: outputDirectory))
            .flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
    }
}
