import Foundation
import TransferKit

/// `-u USER[:PASSWORD]` as curl splits it: at the first colon, so a password may hold colons
/// and a user name may not. The value is never echoed in a message.
public struct UserOption: Sendable, Equatable, Codable {
    public var user: String
    /// nil: to be asked on the terminal before the run.
    public var password: String?

    package static func parse(_ v: String) throws(UsageError) -> UserOption {
        let parts = v.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let user = parts.first, !user.isEmpty else { throw UsageError("--user needs a user name (USER[:PASSWORD])") }
        if user.contains(where: { $0.isNewline || $0 == "\0" }) || (parts.count > 1 && parts[1].contains(where: { $0.isNewline || $0 == "\0" })) {
            throw UsageError("--user must not contain CR, LF or NUL")
        }
        return UserOption(user: user, password: parts.count > 1 ? parts[1] : nil)
    }

    /// The credential, asking for a missing password on the controlling terminal without echo
    /// (as curl). No terminal (a script, CI): a usage error rather than a hang or an empty
    /// password.
    package func credential(prompt: (String) -> String? = PasswordPrompt.ask) throws(UsageError) -> TransferCredential {
        if let password { return TransferCredential(user: user, password: password) }
        guard let typed = prompt("Enter host password for user '\(SafeQuote.quote(user))': ") else {
            throw UsageError("--user \(SafeQuote.quote(user)) has no password and there is no terminal to ask on: give -u USER:PASSWORD or use --netrc-file")
        }
        return TransferCredential(user: user, password: typed)
    }
}

/// Reads a line from /dev/tty with echo off, restoring the terminal afterwards (also when
/// the read fails). nil when there is no controlling terminal.
package enum PasswordPrompt {
    package static func ask(_ prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        var bytes: [UInt8] = []
        var c: UInt8 = 0
        while read(fd, &c, 1) == 1, c != 0x0A, c != 0x0D {
            bytes.append(c)
            if bytes.count > 4096 { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
