import Foundation
import TransferKit

/// What the authentication and trust options say (SPEC S12). The password lives only in
/// memory: in the session's own credential store, never in the default session's shared one
/// (which may write permanent credentials to disk), never in a URL, log, export or resume data.
public struct AuthOptions: Sendable, Equatable {
    public struct Credential: Sendable, Equatable, CustomStringConvertible {
        public var user: String
        public var password: String
        public var description: String { "\(user):***" }
    }

    public var credential: Credential? = nil
    public var digest = false
    /// `-k/--insecure`.
    public var insecure = false
    public var netrc = false
    public var netrcFile: String? = nil
    public var pinnedPublicKey: String? = nil
    public var certificate: String? = nil
    public var keyPassword: String? = nil
    public var key: String? = nil

    public init() {}

    /// The session's configuration: `-u`'s credential for the origin of each URL given (as
    /// curl applies `-u` to every URL), in a memory-only store of this session's own.
    func apply(to c: inout TransferConfiguration, origins urls: [URL]) {
        if let credential {
            let store = CredentialStore()
            let value = TransferCredential(user: credential.user, password: credential.password, persistence: .forSession)
            for url in urls {
                guard let host = url.host else { continue }
                let scheme = url.scheme?.lowercased() ?? "http"
                store.set(value, for: ProtectionSpace(host: host, port: url.port ?? (scheme == "https" ? 443 : 80),
                                                      protocol: scheme, realm: nil, authenticationMethod: .httpBasic))
            }
            c.credentialStore = store
        }
        c.httpAuthentication = digest ? .digest : .basic
        c.allowsInsecureTLS = insecure
        c.netrcFile = netrcFile ?? (netrc ? NetrcDefault.path : nil)
        c.pinnedPublicKey = pinnedPublicKey
        c.clientCertificateFile = certificate
        c.clientKeyFile = key
        c.clientKeyPassword = keyPassword
    }

    /// `USER[:PASSWORD]`; without a password, `prompt` asks for one (or throws).
    static func credential(_ text: String, prompt: (String) throws(UsageError) -> String) throws(UsageError) -> Credential {
        guard let colon = text.firstIndex(of: ":") else {
            guard !text.isEmpty else { throw UsageError("-u/--user needs USER[:PASSWORD]") }
            return Credential(user: text, password: try prompt(text))
        }
        let user = String(text[..<colon])
        guard !user.isEmpty else { throw UsageError("-u/--user needs a user name before ':'") }
        return Credential(user: user, password: String(text[text.index(after: colon)...]))
    }

    /// Asks on the terminal without echo (getpass reads /dev/tty). With no terminal there is
    /// nobody to ask: a usage error, as nothing should hang waiting for a password.
    static func terminalPassword(_ user: String) throws(UsageError) -> String {
        guard isatty(STDIN_FILENO) == 1, let p = getpass("Enter host password for user '\(user)': ") else {
            throw UsageError("-u \(SafeQuote.quote(user, limit: 40)) has no password and there is no terminal to ask for one (give -u USER:PASSWORD or --netrc-file)")
        }
        return String(cString: p)
    }

    /// `sha256//BASE64[;sha256//BASE64...]`, each a 32-byte SHA-256 in base64.
    static func pins(_ text: String) throws(UsageError) -> String {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        for p in parts {
            guard p.hasPrefix("sha256//"), let d = Data(base64Encoded: String(p.dropFirst(8))), d.count == 32 else {
                throw UsageError("bad --pinnedpubkey '\(SafeQuote.quote(String(p), limit: 60))' (expected sha256//BASE64 of a 32-byte SHA-256, ';' between several)")
            }
        }
        return text
    }

    /// `FILE[:PASSWORD]` (curl's `--cert`): the last ':' separates the password.
    static func splitCertificate(_ text: String) -> (String, String?) {
        guard let colon = text.lastIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

enum NetrcDefault {
    static var path: String? {
        ProcessInfo.processInfo.environment["HOME"].map { $0 + "/.netrc" }
    }
}
