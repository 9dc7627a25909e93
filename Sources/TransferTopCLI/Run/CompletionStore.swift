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

/// Asks the server whether a file placed by an earlier run is still the whole current
/// version, with the request a resume would send for the byte after its end:
/// `Range: bytes=SIZE-` and `If-Range: <validator>`. `416` with `Content-Range: bytes */SIZE`
/// means "same version, nothing more": already complete. Anything else (a 200 for a changed
/// validator, a different size) means download; the probe is cancelled at its response head
/// so no body is read.
enum CompletionProbe {
    static func request(_ url: URL, _ record: CompletionStore.Record) -> TransferRequest {
        var headers = [HTTPHeader("Range", "bytes=\(record.size)-")]
        if let v = record.entityTag ?? record.lastModified { headers.append(HTTPHeader("If-Range", v)) }
        return TransferRequest(url: url, headers: headers)
    }

    /// Pure: does this response prove the file complete?
    static func provesComplete(_ response: TransferResponse?, size: Int64) -> Bool {
        guard let response, response.statusCode == 416,
              let range = response.value(forHTTPHeaderField: "Content-Range") else { return false }
        return range.trimmingCharacters(in: .whitespaces) == "bytes */\(size)"
    }

    static func isComplete(_ url: URL, _ record: CompletionStore.Record, configuration: TransferConfiguration) async -> Bool {
        var c = configuration
        c.kind = .ephemeral
        let delegate = ProbeDelegate()
        let session = TransferSession(configuration: c, delegate: delegate, name: "probe")
        defer { session.invalidateAndCancel() }
        let response: TransferResponse? = await withCheckedContinuation { cont in
            delegate.done.withLock { $0 = { cont.resume(returning: $0) } }
            session.dataTask(with: request(url, record)).resume()
        }
        return provesComplete(response, size: record.size)
    }
}

/// Takes the response head, cancels the body, reports once.
final class ProbeDelegate: TransferDataDelegate, @unchecked Sendable {
    // @unchecked: mutable state is behind locks.
    let done = Locked<(@Sendable (TransferResponse?) -> Void)?>(nil)
    let response = Locked<TransferResponse?>(nil)

    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        self.response.withLock { $0 = response }
        completionHandler(.cancel)
    }

    func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
        let body = done.withLock { d in defer { d = nil }; return d }
        body?(response.withLock { $0 })
    }
}
