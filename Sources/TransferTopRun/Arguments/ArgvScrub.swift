import Foundation

/// curl's `cleanarg`: once the options are parsed, the `-u USER:PASSWORD` password is
/// overwritten in the process's own argument vector, so `/proc/PID/cmdline` (and `ps`) no
/// longer show it for the rest of the run (DECISIONS 112). What was visible before parsing
/// cannot be helped; `-u USER` (asked on the terminal) or `--netrc-file` never show it.
package enum ArgvScrub {
    /// Overwrites, with `*`, every byte after the first `:` of each `-u`/`--user` value in
    /// `argv` (stopping at `--`). Returns how many values were scrubbed.
    @discardableResult
    package static func scrubPasswords(argc: Int32 = CommandLine.argc,
                               argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = CommandLine.unsafeArgv) -> Int {
        var scrubbed = 0
        var i = 1
        while i < Int(argc) {
            guard let p = argv[i] else { break }
            let arg = String(cString: p)
            if arg == "--" { break }
            if arg == "-u" || arg == "--user" {
                if i + 1 < Int(argc), let value = argv[i + 1], blankAfterColon(value) { scrubbed += 1 }
                i += 2
                continue
            }
            if arg.hasPrefix("--user="), blankAfterColon(p + "--user=".utf8.count) { scrubbed += 1 }
            i += 1
        }
        return scrubbed
    }

    /// Overwrites the bytes after the first `:` of a C string in place; false without one.
    private static func blankAfterColon(_ s: UnsafeMutablePointer<CChar>) -> Bool {
        guard let colon = strchr(s, Int32(UInt8(ascii: ":"))) else { return false }
        var q = colon + 1
        var any = false
        while q.pointee != 0 {
            q.pointee = CChar(UInt8(ascii: "*"))
            q += 1
            any = true
        }
        return any
    }
}
