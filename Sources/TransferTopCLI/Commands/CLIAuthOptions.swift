import ArgumentParser
import Foundation

/// Authentication and trust options (SPEC S12), as curl spells them.
struct CLIAuthOptions: ParsableArguments {
    @Flag(name: [.customShort("k"), .customLong("insecure")],
          help: "Do not verify the server's certificate (shown in red in the monitor; recorded in CSV/HAR). Never the default.")
    var insecure = false

    @Option(name: [.customShort("u"), .customLong("user")], parsing: .unconditional,
            help: ArgumentHelp("Server user and password; without ':PASSWORD' it is asked for on the terminal (not echoed). Sent only to the URLs' own origins.", valueName: "USER[:PASSWORD]"))
    var user: String?

    @Flag(help: "Send -u's credentials with HTTP Basic, before any challenge (the default).")
    var basic = false

    @Flag(help: "Send -u's credentials with HTTP Digest, answering the server's challenge.")
    var digest = false

    @Flag(help: "Read credentials from ~/.netrc (as curl).")
    var netrc = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Read credentials from this netrc file (as curl).", valueName: "FILE"),
            completion: .file())
    var netrcFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The server's public key must be one of these (sha256//BASE64[;sha256//BASE64...]).", valueName: "HASHES"))
    var pinnedpubkey: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Client certificate (PEM), with the key's password after ':'.", valueName: "FILE[:PASSWORD]"),
            completion: .file())
    var cert: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Client certificate's private key (PEM), when not in --cert's file.", valueName: "FILE"),
            completion: .file())
    var key: String?

    func options() throws(UsageError) -> AuthOptions {
        var a = AuthOptions()
        if let user {
            a.credential = try AuthOptions.credential(user, prompt: AuthOptions.terminalPassword)
        }
        if basic && digest { throw UsageError("--basic and --digest cannot be combined (choose one scheme)") }
        a.digest = digest
        a.insecure = insecure
        a.netrc = netrc
        if let v = netrcFile { a.netrcFile = try OptionValues.nonEmpty(v, "--netrc-file") }
        if let v = pinnedpubkey { a.pinnedPublicKey = try AuthOptions.pins(v) }
        if let v = cert {
            let (file, password) = AuthOptions.splitCertificate(try OptionValues.nonEmpty(v, "--cert"))
            a.certificate = file
            a.keyPassword = password
        }
        if let v = key {
            guard a.certificate != nil else { throw UsageError("--key needs --cert (the certificate it belongs to)") }
            a.key = try OptionValues.nonEmpty(v, "--key")
        }
        return a
    }
}
