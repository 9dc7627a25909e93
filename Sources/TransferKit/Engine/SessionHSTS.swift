import BackgroundWire
import Foundation

/// HSTS per configuration kind (DECISIONS 67): every session learns
/// `Strict-Transport-Security` from its https responses and sends later http requests to those
/// hosts over https; an ephemeral session keeps this in memory, default and background ones in
/// `hsts.txt` (curl's format), read when the session's thread starts and written back,
/// atomically, at teardown. Done here rather than by libcurl's own HSTS (see the decision):
/// the engine must know a request goes over TLS to set up its trust store and host key.
///
/// The HSTS hosts learnt by one session and whether they changed; used only on its transfer
/// thread (loaded as it starts, saved at its teardown).
final class SessionHSTS {
    private var store = HSTSStore()
    private var changed = false
    private let kind: SessionKind
    private let stateDirectory: String?
    /// Names the temporary file of a save.
    private let sessionID: Int

    init(configuration: TransferConfiguration, sessionID: Int) {
        kind = configuration.kind
        stateDirectory = configuration.stateDirectory
        self.sessionID = sessionID
    }

    /// nil for ephemeral sessions: their HSTS never reaches disk.
    var path: String? {
        if case .ephemeral = kind { return nil }
        return StatePaths.dataDirectory(stateDirectory).map { $0 + "/hsts.txt" }
    }

    func load() {
        guard let path, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        store.merge(fileText: text, now: Date().timeIntervalSince1970)
    }

    /// Sends the hop to https when its host is known to require it (`makeEasy`, before the handle
    /// and the hop's host key are made).
    func upgrade(_ t: Transfer) {
        guard !store.isEmpty, let upgraded = store.upgraded(t.request.url, now: Date().timeIntervalSince1970) else { return }
        t.request.url = upgraded
    }

    /// Learns from a response head that came over https (verified TLS: TransferKit has no
    /// switch to turn verification off). Only the first such header counts (RFC 6797 8.1).
    func record(_ t: Transfer) {
        // The header first, then the URL: most responses have none, and the URL's parts are
        // worked out anew at each call. The length test first: no lower-cased copy of every
        // header of every response.
        guard let header = t.responseHeaders.first(where: {
                  $0.name.utf8.count == 25 && $0.name.lowercased() == "strict-transport-security"
              }),
              t.request.url.scheme?.lowercased() == "https", let host = t.request.url.host
        else { return }
        if store.record(header: header.value, host: host, now: Date().timeIntervalSince1970) { changed = true }
    }

    /// Writes the store back when it changed: merged with what another process wrote meanwhile,
    /// to a private temporary file renamed over the old one (never a half-written file).
    func save() {
        guard changed, let path else { return }
        let now = Date().timeIntervalSince1970
        var merged = store
        if let onDisk = try? String(contentsOfFile: path, encoding: .utf8) {
            var theirs = HSTSStore()
            theirs.merge(fileText: onDisk, now: now)
            merged.adoptMissing(from: theirs)
        }
        let dir = (path as NSString).deletingLastPathComponent
        PrivateDirectory.create(dir)
        let temp = dir + "/.hsts.txt.\(getpid()).\(sessionID).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        let bytes = Array(merged.fileText(now: now).utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            written += n
        }
        let ok = written == bytes.count && fsync(fd) == 0
        close(fd)
        if ok, rename(temp, path) == 0 { changed = false } else { unlink(temp) }
    }
}

extension StatePaths {
    /// Where TransferKit keeps data that outlives a run (HSTS): the configured state directory
    /// when there is one (a session's state stays together, tests stay private), else
    /// `$XDG_DATA_HOME/transfertop` or `~/.local/share/transfertop`.
    public static func dataDirectory(_ configured: String?) -> String? {
        if let configured { return configured }
        if let x = ProcessEnvironment.value("XDG_DATA_HOME"), !x.isEmpty { return x + "/transfertop" }
        if let home = ProcessEnvironment.value("HOME"), !home.isEmpty { return home + "/.local/share/transfertop" }
        return nil
    }
}
