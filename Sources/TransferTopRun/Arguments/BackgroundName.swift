import BackgroundWire
import TransferKit

/// A background session's name: letters, digits, `.`, `_` and `-`, 1-64 of them (it is shown
/// in messages and used as a key, never as a path).
package enum BackgroundName {
    package static func check(_ v: String, _ option: String) throws(UsageError) -> String {
        // The rule is BackgroundWire's (a library identifier names a directory too); the
        // message quotes the value the CLI's way.
        guard LibraryWire.nameProblem(v, option) == nil else {
            throw UsageError("\(option) takes a session name of 1-64 letters, digits, '.', '_' or '-', not '\(SafeQuote.quote(v, limit: 30))'")
        }
        return v
    }
}
