import Foundation

/// Credentials by server (URLSession's `URLCredentialStorage`, SPEC S12). A default session
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
    /// nil: memory only.
    public let netrcPath: String?
    private var loaded = false

    public init(netrcPath: String? = nil) { self.netrcPath = netrcPath }

    /// The store of default sessions, its permanent credentials in the state directory.
    public static let shared = CredentialStore(
        netrcPath: StatePaths.stateDirectory(nil).map { $0 + "/netrc" })

    public static func == (a: CredentialStore, b: CredentialStore) -> Bool { a === b }

    /// Stores `credential` for the space (realm nil: any realm of that server). `.none`
    /// credentials are not stored; `.permanent` ones are also written to the netrc file.
    public func set(_ credential: TransferCredential, for space: ProtectionSpace) {
        guard credential.persistence != .none else { return }
        let key = Key(host: space.host.lowercased(), port: space.port, scheme: space.protocol.lowercased(),
                      realm: space.realm, isProxy: space.isProxy)
        let permanent = lock.withLock { () -> [(String, TransferCredential)]? in
            loadIfNeeded()
            entries[key] = credential
            guard credential.persistence == .permanent else { return nil }
            return entries.filter { $0.value.persistence == .permanent }.map { ($0.key.host, $0.value) }
        }
        if let permanent { writeNetrc(permanent) }
    }

    public func remove(for space: ProtectionSpace) {
        let key = Key(host: space.host.lowercased(), port: space.port, scheme: space.protocol.lowercased(),
                      realm: space.realm, isProxy: space.isProxy)
        lock.withLock { entries[key] = nil }
    }

    /// The credential for the space: one for its realm, else one for any realm of the server.
    public func credential(for space: ProtectionSpace) -> TransferCredential? {
        credential(host: space.host, port: space.port, scheme: space.protocol, realm: space.realm, isProxy: space.isProxy)
    }

    func credential(host: String, port: Int, scheme: String, realm: String?, isProxy: Bool) -> TransferCredential? {
        lock.withLock {
            loadIfNeeded()
            let key = Key(host: host.lowercased(), port: port, scheme: scheme.lowercased(), realm: realm, isProxy: isProxy)
            if realm != nil, let c = entries[key] { return c }
            var any = key
            any.realm = nil
            if let c = entries[any] { return c }
            // Before a challenge the realm is unknown: any credential of that server will do.
            guard realm == nil else { return nil }
            return entries.first { $0.key.host == key.host && $0.key.port == port && $0.key.scheme == key.scheme
                && $0.key.isProxy == isProxy }?.value
        }
    }

    /// Permanent credentials from the netrc file (lock held). A netrc entry names a machine,
    /// not a port or scheme: it is kept for both http (80) and https (443).
    private func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        guard let netrcPath, let text = try? String(contentsOfFile: netrcPath, encoding: .utf8) else { return }
        for entry in Netrc.parse(text) {
            let c = TransferCredential(user: entry.login, password: entry.password, persistence: .permanent)
            for (scheme, port) in [("http", 80), ("https", 443)] {
                entries[Key(host: entry.machine.lowercased(), port: port, scheme: scheme, realm: nil, isProxy: false)] = c
            }
        }
    }

    private func writeNetrc(_ items: [(String, TransferCredential)]) {
        guard let netrcPath else { return }
        var seen = Set<String>(), text = ""
        for (host, c) in items where seen.insert(host).inserted {
            text += Netrc.line(machine: host, login: c.user, password: c.password)
        }
        let dir = (netrcPath as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        // Created 0600 before any byte is written, then renamed over the old file.
        let temp = netrcPath + ".tmp"
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let ok = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) == $0.count }
        close(fd)
        if ok { rename(temp, netrcPath) } else { unlink(temp) }
    }
}

/// The netrc format curl, wget and ftp read: `machine HOST login USER password PASS`.
enum Netrc {
    struct Entry: Equatable { var machine: String, login: String, password: String }

    static func parse(_ text: String) -> [Entry] {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).map(String.init)
        var out: [Entry] = [], i = 0, current: Entry?
        while i < words.count {
            let w = words[i], next = i + 1 < words.count ? words[i + 1] : ""
            switch w {
            case "machine":
                if let c = current { out.append(c) }
                current = Entry(machine: next, login: "", password: "")
                i += 2
            case "login": current?.login = next; i += 2
            case "password": current?.password = next; i += 2
            case "default":
                if let c = current { out.append(c) }
                current = nil
                i += 1
            default: i += 1
            }
        }
        if let c = current { out.append(c) }
        return out
    }

    static func line(machine: String, login: String, password: String) -> String {
        "machine \(machine) login \(login) password \(password)\n"
    }
}
