import Foundation

/// `--cert FILE[:PASSWORD]` and `--key FILE`, as curl reads them: the last ':' of `--cert`
/// starts the key's password (a file name may hold colons, a password given so may not).
/// The password is never shown in a message.
public struct ClientCertificate: Sendable, Equatable, Codable {
    public var file: String
    /// nil: the key is in the certificate's file.
    public var key: String?
    public var password: String?

    package static func parse(_ value: String, key: String?) throws(UsageError) -> ClientCertificate {
        var file = value, password: String? = nil
        if let colon = value.lastIndex(of: ":") {
            file = String(value[..<colon])
            password = String(value[value.index(after: colon)...])
        }
        guard !file.isEmpty else { throw UsageError("--cert needs a file name (FILE[:PASSWORD])") }
        if let key, key.isEmpty { throw UsageError("--key needs a non-empty value") }
        return ClientCertificate(file: file, key: key, password: password)
    }
}
