import BackgroundWire
import Foundation

/// Credentials by server (URLSession's `URLCredentialStorage`). A default session
/// uses `CredentialStore.shared` (process-wide; its permanent credentials in a netrc file);
/// an ephemeral session gets one of its own, in memory only.
///
/// Permanent credentials are never written as clear text to a file others can read: they go
/// to `$XDG_STATE_HOME/transfertop/netrc` (netrc format, as curl's `--netrc-file` reads),
/// created with mode 0600 in a 0700 directory and rewritten atomically.
public final class CredentialStore: @unchecked Sendable, Equatable {
    // @unchecked: every field is behind `lock`.
    struct Key: Hashable {
        var host: String, port: Int, scheme: String, realm: String?, isProxy: Bool
    }

    private let lock = NSLock()
    private var entries: [Key: TransferCredential] = [:]
    /// Permanent credentials read from the netrc file, by host: netrc names machines, not
    /// ports or schemes, so (as curl) they serve any port of that host.
    private var fromFile: [String: TransferCredential] = [:]
    /// nil: memory only.
    public let netrcPath: String?
    private var loaded = false

    public init(netrcPath: String? = nil) { self.netrcPath = netrcPath }

    /// The store of default sessions, its permanent credentials in the state directory.
    public static var shared: CredentialStore { shared(stateDirectory: nil) }

    /// One store per state directory, for the whole process: default sessions that keep
    /// their state in the same place share their credentials, as they share cookies.
    public static func shared(stateDirectory: String?) -> CredentialStore {
        let path = StatePaths.stateDirectory(stateDirectory).map { $0 + "/netrc" }
        return sharedStores.withLock { stores in
            if let s = stores[path ?? ""] { return s }
            let s = CredentialStore(netrcPath: path)
            stores[path ?? ""] = s
            return s
        }
    }

    private static let sharedStores = Locked<[String: CredentialStore]>([:])

    public static func == (a: CredentialStore, b: CredentialStore) -> Bool { a === b }

    /// Stores `credential` for the space (realm nil: any realm of that server). `.none`
    /// credentials are not stored; `.permanent` ones are also written to the netrc file.
    public func set(_ credential: TransferCredential, for space: ProtectionSpace) {
        guard credential.persistence != .none else { return }
        lock.withLock {
            loadIfNeeded()
            entries[Self.key(space)] = credential
            // Written under the lock: two writers never race for the temporary file.
            if credential.persistence == .permanent {
                writeNetrc(entries.filter { $0.value.persistence == .permanent && !$0.key.isProxy }.map { ($0.key.host, $0.value) })
            }
        }
    }

    static func key(_ space: ProtectionSpace) -> Key {
        Key(host: space.host.lowercased(), port: space.port, scheme: space.protocol.lowercased(), realm: space.realm,
            isProxy: space.isProxy)
    }

    /// Forgets the space's credential; a permanent one (or the netrc file's entry for that
    /// host) is also removed from the file.
    public func remove(for space: ProtectionSpace) {
        lock.withLock {
            loadIfNeeded()
            let key = Self.key(space)
            let removed = entries.removeValue(forKey: key)
            let inFile = !key.isProxy && fromFile.removeValue(forKey: key.host) != nil
            if removed?.persistence == .permanent || inFile {
                writeNetrc(entries.filter { $0.value.persistence == .permanent && !$0.key.isProxy }.map { ($0.key.host, $0.value) })
            }
        }
    }

    /// The credential for the space: one for its realm, else one for any realm of the server.
    public func credential(for space: ProtectionSpace) -> TransferCredential? {
        credential(host: space.host, port: space.port, scheme: space.protocol, realm: space.realm, isProxy: space.isProxy)
    }

    /// Whether any credential is stored: asked before a request's host, port and scheme are
    /// worked out from its URL for a look-up (each a parse of the URL's text).
    var isEmpty: Bool {
        lock.withLock {
            loadIfNeeded()
            return entries.isEmpty && fromFile.isEmpty
        }
    }

    func credential(host: String, port: Int, scheme: String, realm: String?, isProxy: Bool) -> TransferCredential? {
        lock.withLock {
            loadIfNeeded()
            // Asked for every request: nothing stored (the usual case) costs no key.
            if entries.isEmpty && fromFile.isEmpty { return nil }
            let key = Key(host: host.lowercased(), port: port, scheme: scheme.lowercased(), realm: realm, isProxy: isProxy)
            if realm != nil, let c = entries[key] { return c }
            var any = key
            any.realm = nil
            if let c = entries[any] { return c }
            // Before a challenge the realm is unknown: any credential of that server will do.
            if realm == nil, let c = entries.first(where: { $0.key.host == key.host && $0.key.port == port
                && $0.key.scheme == key.scheme && $0.key.isProxy == isProxy })?.value { return c }
            return isProxy ? nil : fromFile[key.host]
        }
    }

    /// Permanent credentials from the netrc file (lock held), by machine. A file others may
    /// read (any group or other permission bit) is not trusted with passwords: ignored.
    private func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        var info = stat()
        guard let netrcPath, stat(netrcPath, &info) == 0, info.st_mode & 0o077 == 0,
              let text = try? String(contentsOfFile: netrcPath, encoding: .utf8) else { return }
        for entry in Netrc.parse(text) where fromFile[entry.machine.lowercased()] == nil {  // the first entry wins, as curl's
            fromFile[entry.machine.lowercased()] = TransferCredential(user: entry.login, password: entry.password, persistence: .permanent)
        }
    }

    /// Lock held. The file names machines only (netrc has no port or realm): a permanent
    /// credential comes back for any port of its host. Entries read from the file and not
    /// replaced in this process are kept.
    private func writeNetrc(_ items: [(String, TransferCredential)]) {
        guard let netrcPath else { return }
        var seen = Set<String>(), text = ""
        let kept = fromFile.filter { host, _ in !items.contains { $0.0 == host } }.map { ($0.key, $0.value) }
        for (host, c) in (items + kept).sorted(by: { $0.0 < $1.0 }) where seen.insert(host).inserted {
            text += Netrc.line(machine: host, login: c.user, password: c.password)
        }
        _ = PrivateFile.replace(netrcPath, with: Array(text.utf8))
    }
}
