import Foundation

/// Permissions of files the user keeps (downloads, exports): `0666 & ~umask`, as curl and wget
/// create them. TransferKit writes partial files 0600 because they may sit in a
/// shared state directory; the final file is the user's and follows their umask.
package enum FileModes {
    /// The process umask, read once (setting it back at once: umask has no pure getter).
    package static let umaskValue: mode_t = {
        let current = umask(0o022)
        umask(current)
        return current
    }()

    static var newFileMode: Int { Int(0o666 & ~umaskValue) }

    /// Gives a placed download the mode a new file would have; failures are ignored (the file
    /// is complete and private, only less shared than asked).
    static func applyUmask(to path: String) {
        _ = chmod(path, mode_t(newFileMode))
    }
}
