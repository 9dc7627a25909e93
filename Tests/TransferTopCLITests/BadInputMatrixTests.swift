import Foundation
import Testing
@testable import TransferTopCLI

/// Bad input: every row runs the real binary and must end with the exit
/// status and message it names, never a crash, never an echoed secret. Add a row with every
/// new option. `{dir}` in arguments, files and environment is the row's private directory.
struct BadInput: Sendable, CustomStringConvertible {
    var args: [String]
    var files: [String: [UInt8]] = [:]
    var directories: [String] = []
    /// Sparse files of these sizes (truncate: no bytes written).
    var sparse: [String: Int64] = [:]
    var status: Int32 = 2
    var fragment: String
    /// Text that must not appear on stdout or stderr (a password, a file's secret line).
    var never: [String] = []

    var description: String { args.joined(separator: " ") }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }
}

@Suite struct BadInputMatrixTests {
    static let url = "http://127.0.0.1:1/x"
    static let shadow = "root:$6$saltsalt$9hashhashhashhashhash:19000:0:99999:7:::\n"

    static let rows: [BadInput] = [
        // Header injection, from the command line and from a job file.
        BadInput(args: ["-H", "X-A: 1\r\nX-Evil: 2", url], fragment: "contains CR, LF or NUL"),
        BadInput(args: ["-H", "X-A: 1\nGET / HTTP/1.1", url], fragment: "contains CR, LF or NUL"),
        BadInput(args: ["-H", "Bad Name: v", url], fragment: "is not a token"),
        BadInput(args: ["-H", "X\u{1B}[2J: v", url], fragment: "\\x1B[2J", never: ["\u{1B}"]),
        BadInput(args: ["-H", "Authorization Bearer hunter2", url], fragment: "bad header", never: ["hunter2"]),
        BadInput(args: ["--job", "{dir}/j.toml"],
                 files: ["j.toml": BadInput.text("[[session]]\nheaders = [\"X-A: 1\\nX-Evil: 2\"]\n[[session.task]]\nurl = \"\(url)\"\n")],
                 fragment: "j.toml:2: field 'headers': bad header: the value of header 'X-A' contains CR, LF or NUL"),
        // Numbers: nan, inf, negative, too large, not a number — exit 2, never a trap.
        BadInput(args: ["--request-timeout", "1e26", url], fragment: "--request-timeout must be a number of seconds"),
        BadInput(args: ["--resource-timeout", "18446744072", url], fragment: "--resource-timeout must be a number of seconds"),
        BadInput(args: ["--request-timeout", "nan", url], fragment: "not 'nan'"),
        BadInput(args: ["--request-timeout", "inf", url], fragment: "not 'inf'"),
        BadInput(args: ["--request-timeout", "-5", url], fragment: "not '-5'"),
        BadInput(args: ["--request-timeout", "0", url], fragment: "not '0'"),
        BadInput(args: ["--resource-timeout", "soon", url], fragment: "not 'soon'"),
        BadInput(args: ["--fps", "1e3", url], fragment: "--fps must be a whole number"),
        BadInput(args: ["--fps", "-1", url], fragment: "--fps must be a whole number"),
        BadInput(args: ["--max-connections-per-host", "99999999999999999999999", url], fragment: "--max-connections-per-host must be"),
        BadInput(args: ["--max-redirs", "-2", url], fragment: "--max-redirs must be a whole number from -1 to"),
        BadInput(args: ["--max-filesize", "1e9", url], fragment: "--max-filesize must be a size from"),
        BadInput(args: ["--job", "{dir}/j.toml"],
                 files: ["j.toml": BadInput.text("[[session]]\nrequest_timeout = 1e26\n[[session.task]]\nurl = \"\(url)\"\n")],
                 fragment: "j.toml:2: field 'request_timeout': must be a number of seconds"),
        BadInput(args: ["--job", "{dir}/j.toml"],
                 files: ["j.toml": BadInput.text("[[session]]\nresource_timeout = 18446744072\n[[session.task]]\nurl = \"\(url)\"\n")],
                 fragment: "field 'resource_timeout': must be a number of seconds"),
        BadInput(args: ["--job", "{dir}/j.toml"],
                 files: ["j.toml": BadInput.text("[[session]]\nmax_connections_per_host = 1e300\n[[session.task]]\nurl = \"\(url)\"\n")],
                 fragment: "field 'max_connections_per_host': must be a whole number"),
        BadInput(args: ["--job", "{dir}/j.toml"],
                 files: ["j.toml": BadInput.text("[[session]]\nrequest_timeout = nan\n[[session.task]]\nurl = \"\(url)\"\n")],
                 fragment: "field 'request_timeout': must be a number of seconds"),
        // Secrets are never echoed.
        BadInput(args: ["http://user:hunter2@[bad/x"], fragment: "not a URL", never: ["hunter2"]),
        BadInput(args: ["-u", ":hunter2", url], fragment: "--user needs a user name", never: ["hunter2"]),
        BadInput(args: ["--pinnedpubkey", "abc", url], fragment: "--pinnedpubkey takes sha256//BASE64 hashes"),
        BadInput(args: ["-k", "gopher://127.0.0.1/x"], fragment: "unsupported scheme 'gopher'"),
        BadInput(args: ["-b", "{dir}/nojar", url], fragment: "cannot read cookie file"),
        BadInput(args: ["-b", "a=1\r\nX-Evil: 2", url], fragment: "--cookie must not contain CR, LF or NUL"),
        BadInput(args: ["-c", "{dir}/d", url], directories: ["d"], fragment: "--cookie-jar"),
        BadInput(args: ["--cache", "--cache-policy", "sometimes", url], fragment: "--cache-policy takes useProtocolCachePolicy"),
        BadInput(args: ["--cache-policy", "returnCacheDataElseLoad", url], fragment: "--cache-policy needs --cache"),
        BadInput(args: ["-c", "{dir}/missing/jar", url], fragment: "cannot write the cookie jar"),
        BadInput(args: ["--pinnedpubkey", "sha256//AAAA", url], fragment: "not 'sha256//AAAA'"),
        BadInput(args: ["--pinnedpubkey", "sha256//lTmAwRRRTkk3jMKt1T+V4uBtl56rCjsN+1j0vRk/7uY=;", url], fragment: "--pinnedpubkey takes"),
        BadInput(args: ["--basic", url], fragment: "--basic needs credentials"),
        BadInput(args: ["--anyauth", url], fragment: "--anyauth needs credentials"),
        BadInput(args: ["--netrc", "-u", "al", url], fragment: "has no password and there is no terminal to ask on"),
        BadInput(args: ["-u", "al", url], fragment: "has no password and there is no terminal to ask on"),
        BadInput(args: ["--digest", url], fragment: "--digest needs credentials"),
        BadInput(args: ["--netrc-file", "{dir}/none", url], fragment: "cannot read netrc file"),
        BadInput(args: ["--netrc-file", "{dir}/d", url], directories: ["d"], fragment: "cannot read netrc file"),
        BadInput(args: ["-u", "al:pa\nss", url], fragment: "--user must not contain CR, LF or NUL", never: ["pa\nss"]),
        // Client certificates: checked before the run, the key's password never echoed.
        BadInput(args: ["--cert", "{dir}/none.pem:hunter2", url], fragment: "cannot read --cert file", never: ["hunter2"]),
        BadInput(args: ["--cert", ":hunter2", url], fragment: "--cert needs a file name", never: ["hunter2"]),
        BadInput(args: ["--cert", "{dir}/c.pem", url], files: ["c.pem": BadInput.text("not a certificate\n")],
                 fragment: "holds no PEM certificate"),
        BadInput(args: ["--key", "{dir}/k.pem", url], fragment: "--key needs --cert"),
        BadInput(args: ["--cert", "{dir}/c.pem", "--key", "{dir}/k.pem", url],
                 files: ["c.pem": BadInput.text("-----BEGIN CERTIFICATE-----\n"), "k.pem": BadInput.text("secret\n")],
                 fragment: "holds no PEM private key", never: ["secret"]),
        BadInput(args: ["--password=hunter2", url], fragment: "unknown option '--password'", never: ["hunter2"]),
        BadInput(args: ["-i", "{dir}/shadow"], files: ["shadow": BadInput.text(shadow)], fragment: "input file",
                 never: ["9hash", "hashhash", "saltsalt$"]),
        // Refused at parse time, with the reason.
        BadInput(args: ["gopher://127.0.0.1/x"], fragment: "unsupported scheme 'gopher' in 'gopher://127.0.0.1/x' (use http, https, ftp, ftps, file or data)"),
        BadInput(args: ["ftp:///x"], fragment: "not a URL: 'ftp:///x'"),
        // ftp, file and data: URLs are fetched; a malformed data: URL is a usage error.
        BadInput(args: ["data:text/plain;base64,SGVsbG8=!"], fragment: "malformed data: URL: its data is not valid base64"),
        BadInput(args: ["data:text/plain"], fragment: "malformed data: URL: it has no ',' before its data"),
        BadInput(args: ["data:text,x"], fragment: "malformed data: URL: 'text' is not a media type (type/subtype)"),
        BadInput(args: ["--cacert", "{dir}/ca.txt", url], files: ["ca.txt": BadInput.text("not a certificate\n")],
                 fragment: "holds no PEM certificate"),
        BadInput(args: ["--upload", "{dir}/up", url], directories: ["up"], fragment: "is a directory, not a file to upload"),
        BadInput(args: ["-F", "f=@{dir}/up", url], directories: ["up"], fragment: "is a directory, not a file to upload"),
        BadInput(args: ["--form", "f=@{dir}/x;colour=red", url], fragment: "unknown option 'colour'"),
        // Segmented uploads.
        BadInput(args: ["--segments", "0", "-T", "{dir}/f", url], files: ["f": [1]], fragment: "--segments must be a whole number from 1 to 64, not '0'"),
        BadInput(args: ["--segments", "65", "-T", "{dir}/f", url], files: ["f": [1]], fragment: "--segments must be a whole number from 1 to 64"),
        BadInput(args: ["--segments", "2", url], fragment: "--segments needs -T FILE"),
        BadInput(args: ["--segment-size", "1M", "-T", "{dir}/f", url], files: ["f": [1]], fragment: "--segment-size needs --segments N"),
        BadInput(args: ["--segments", "2", "--segment-size", "10", "-T", "{dir}/f", url], files: ["f": [1]],
                 fragment: "--segment-size must be a size from 64.0 KiB to 4.0 GiB (bytes, or with K, M or G), not '10'"),
        BadInput(args: ["--segments", "2", "--segment-size", "99999999999999999999G", "-T", "{dir}/f", url], files: ["f": [1]],
                 fragment: "--segment-size must be a size from 64.0 KiB"),
        BadInput(args: ["--segments", "2", "--segment-size", "-64K", "-T", "{dir}/f", url], files: ["f": [1]],
                 fragment: "--segment-size must be a size"),
        BadInput(args: ["--segments", "2", "-T", "-", url], fragment: "--segments needs a file, not standard input"),
        // Decisions 106-108: too many segments (a sparse file near Int64.max, and 1 TiB in 64K
        // segments), an empty file, and exports line mode would not write.
        BadInput(args: ["--segments", "2", "-T", "{dir}/huge", url], sparse: ["huge": 15 << 40],
                 fragment: "would be 1966080 segments of 8388608 bytes, more than 100000; use --segment-size 161062K or more"),
        BadInput(args: ["--segments", "2", "--segment-size", "64K", "-T", "{dir}/big", url], sparse: ["big": 1 << 40],
                 fragment: "would be 16777216 segments of 65536 bytes, more than 100000; use --segment-size 10738K or more"),
        BadInput(args: ["--segments", "2", "-T", "{dir}/empty", url], files: ["empty": []], fragment: "is empty; there is nothing to send in segments"),
        BadInput(args: ["--segments", "2", "--csv", "{dir}/t.csv", "-T", "{dir}/f", url], files: ["f": [1]],
                 fragment: "--csv is not written for a --segments upload in line mode"),
        BadInput(args: ["--segments", "2", "--har", "{dir}/t.har", "-T", "{dir}/f", url], files: ["f": [1]],
                 fragment: "--har is not written for a --segments upload in line mode"),
        BadInput(args: ["--segments", "2", "-T", "{dir}/f", url, url + "2"], files: ["f": [1]], fragment: "give exactly one URL"),
        BadInput(args: ["--segments", "2", "-T", "{dir}/up", url], directories: ["up"], fragment: "is a directory, not a file to upload"),
        BadInput(args: ["--job", "{dir}/j.toml"], files: ["j.toml": BadInput.text(
            "[[session]]\n[[session.task]]\nkind = \"upload\"\nfile = \"up\"\nurl = \"\(url)\"\n")],
                 directories: ["up"], fragment: "j.toml:4: field 'file': '"),
        BadInput(args: ["--theme", "{dir}/bin.theme", url], files: ["bin.theme": [0x7F, 0x45, 0x4C, 0x46, 0, 1, 2, 0xFF]],
                 fragment: "is not a text file"),
        BadInput(args: ["--theme", "{dir}/bad.toml", url], files: ["bad.toml": BadInput.text("# ok\nbarFill = \"chartreuse\"\n")],
                 fragment: "bad.toml:2: bad colour or attribute `chartreuse`"),
        BadInput(args: ["--theme", "{dir}/old.theme", url], files: ["old.theme": BadInput.text("# ok\ntext = #ffffff\n")],
                 fragment: "old.theme:2: not valid TOML"),
        BadInput(args: ["--job", "{dir}/j.toml"], files: ["j.toml": BadInput.text("[[session]]\n[[session.task]]\nurl = \"\(url)\"\nurl = \"\(url)\"\n")],
                 fragment: "j.toml:4: not valid TOML"),
        BadInput(args: ["--job", "{dir}/j.toml"], files: ["j.toml": BadInput.text("[[session]]\nname = \" \"\n[[session.task]]\nurl = \"\(url)\"\n")],
                 fragment: "j.toml:2: field 'name': must not be empty"),
        BadInput(args: ["--theme", "no-such-theme", url], fragment: "theme 'no-such-theme' not found"),
        BadInput(args: ["--theme", "{dir}/themes.toml", url], directories: ["themes.toml"],
                 fragment: "theme '{dir}/themes.toml' is a directory, not a theme file"),
        BadInput(args: ["--theme", "/dev/zero", url], fragment: "theme '/dev/zero' is a device, not a theme file"),
        BadInput(args: [url], files: ["config/transfertop/keys.toml": BadInput.text("x = \"cancel\"\nzz = \"quit-everything\"\n")],
                 fragment: "keys.toml:2: unknown key `zz`"),
        BadInput(args: [url], files: ["config/transfertop/keys.conf": BadInput.text("x = cancel\n")],
                 fragment: "keys.conf:1: not valid TOML"),
        // A NUL escape is valid TOML, but toml++ cut the string there (a header or URL became
        // another): refused wherever TOML is read, naming the line.
        BadInput(args: ["--job", "{dir}/j.toml"], files: ["j.toml": BadInput.text(
            "[[session]]\nheaders = [\"X-A: a\\u0000b\"]\n[[session.task]]\nurl = \"\(url)\"\n")],
                 fragment: "j.toml:2: not valid TOML: a string holds \\u0000 (NUL)"),
        BadInput(args: ["--job", "{dir}/j.toml"], files: ["j.toml": BadInput.text(
            "[[session]]\n[[session.task]]\nurl = \"\"\"\(url)x\\U00000000y\"\"\"\n")],
                 fragment: "j.toml:3: not valid TOML: a string holds \\u0000 (NUL)"),
        BadInput(args: [url], files: ["config/transfertop/keys.toml": BadInput.text("\"\\u0000\" = \"quit\"\n")],
                 fragment: "keys.toml:1: not valid TOML: a string holds \\u0000 (NUL)"),
        BadInput(args: [url], directories: ["config/transfertop/keys.toml"],
                 fragment: "cannot read key bindings '{dir}/config/transfertop/keys.toml': it is a directory"),
        BadInput(args: [url], files: ["config/transfertop/keys.toml": [0x78, 0x20, 0x3D, 0x20, 0xFF, 0x0A]],
                 fragment: "key bindings '{dir}/config/transfertop/keys.toml': line 1 is not UTF-8 text"),
        // Diagnostics and metrics: checked before any transfer.
        BadInput(args: ["--log-file", "/proc/transfertop-nope/log", url], fragment: "cannot open log file '/proc/transfertop-nope/log'"),
        BadInput(args: ["--trace", "--log-file", "{dir}/logs", url], directories: ["logs"], fragment: "cannot open log file"),
        BadInput(args: ["--log-level", "loud", url], fragment: "--log-level must be one of trace, debug, info, notice, warning, error, critical, not 'loud'"),
        // Budgets and the summary (docs/evidence.md): the column of the problem, before any transfer.
        BadInput(args: ["--slo", "ttfb.p95<200", url], fragment: "bad --slo 'ttfb.p95<200' at column 13: expected a unit: ms, s or us"),
        BadInput(args: ["--slo", "ttfb.p95<1ms,,errors<1%", url], fragment: "at column 14: expected a budget"),
        BadInput(args: ["--slo", "host=\u{1B}[2J:errors<1%", url], fragment: "a host name has no blanks or control characters", never: ["\u{1B}"]),
        BadInput(args: ["--summary", "csv", url], fragment: "--summary must be tasks, hosts, all, json, not 'csv'"),
        BadInput(args: ["--background", "n", "--slo", "errors<1%", url], fragment: "--background does not take --slo or --summary"),
        BadInput(args: ["--prometheus", "99999", url], fragment: "--prometheus must be PORT or HOST:PORT with a port from 0 to 65535, not '99999'"),
        BadInput(args: ["--prometheus", "host:", url], fragment: "--prometheus must be PORT or HOST:PORT"),
        BadInput(args: ["--prometheus", "192.0.2.1:9100", url], fragment: "--prometheus cannot listen on 192.0.2.1:9100"),
        BadInput(args: ["--otlp", "grpc://127.0.0.1:4317", url], fragment: otlpRefusal),
        // --background: a name that could not be a key, and what a daemon cannot do.
        BadInput(args: ["--background", "a/b", url], fragment: "--background takes a session name of 1-64 letters, digits, '.', '_' or '-', not 'a/b'"),
        BadInput(args: ["--background", "..", url], fragment: "--background takes a session name of 1-64 letters, digits, '.', '_' or '-', not '..'"),
        BadInput(args: ["--background", "q", "--upload", "-", url], fragment: "--background cannot read --upload -"),
        BadInput(args: ["--background", "q", "--upload", "/dev/zero", url], fragment: "--background cannot read --upload '/dev/zero': it is a device"),
        // attach takes the monitor's options only (DECISIONS 127).
        BadInput(args: ["attach", "m", "-o", "{dir}"], fragment: "'attach' takes no transfer options, only --no-tui, --theme, --fps and --yes"),
        BadInput(args: ["attach", "m", "--fps", "0"], fragment: "--fps"),
        BadInput(args: ["attach", "a/b", "--no-tui"], fragment: "attach takes a session name of 1-64 letters"),
        // Exports: checked before any transfer.
        BadInput(args: ["--csv", "{dir}/old.csv", url], files: ["old.csv": BadInput.text("keep me")], fragment: "exists (pass --force"),
        BadInput(args: ["--har", "{dir}/old.har", url], files: ["old.har": BadInput.text("keep me")], fragment: "exists (pass --force"),
        BadInput(args: ["--csv", "{dir}/nope/m.csv", url], fragment: "directory is missing or not writable"),
        BadInput(args: ["-o", "{dir}", "--csv", "{dir}/x", url], fragment: "is where a download of this run goes"),
        BadInput(args: ["--csv", "{dir}", url], fragment: "is a directory"),
        // The remaining options, so every option has a row (checked below).
        BadInput(args: ["--session", "shared\u{1B}[2J", url], fragment: "--session must be 'default' or 'ephemeral'", never: ["\u{1B}"]),
        BadInput(args: ["--output-dir", "{dir}/file", url], files: ["file": BadInput.text("x")], fragment: "is not a directory"),
        BadInput(args: ["--input-file", "{dir}/missing"], fragment: "cannot read input file"),
        BadInput(args: ["--job", "{dir}/missing.toml"], fragment: "cannot read job file"),
        BadInput(args: ["--header", "X-A:\u{7F}ok", "--no-tui=yes", url], fragment: "option '--no-tui' takes no value"),
        BadInput(args: ["--debug=yes", url], fragment: "option '--debug' takes no value"),
        BadInput(args: ["--yes=no", url], fragment: "option '--yes' takes no value"),
        BadInput(args: ["--progress=1", url], fragment: "option '--progress' takes no value"),
        BadInput(args: ["--theme", "", url], fragment: "--theme needs a non-empty value"),
        // Flags take no value.
        BadInput(args: ["--clobber=yes", url], fragment: "option '--clobber' takes no value"),
        BadInput(args: ["--no-clobber=1", url], fragment: "option '--no-clobber' takes no value"),
        BadInput(args: ["--location-trusted=1", url], fragment: "option '--location-trusted' takes no value"),
        BadInput(args: ["--force=1", url], fragment: "option '--force' takes no value"),
        BadInput(args: ["--compressed=gzip", url], fragment: "option '--compressed' takes no value"),
        BadInput(args: ["--content-disposition=1", url], fragment: "option '--content-disposition' takes no value"),
        BadInput(args: ["--no-content-disposition=0", url], fragment: "option '--no-content-disposition' takes no value"),
        // -A: a User-Agent that would split the request.
        BadInput(args: ["-A", "x\r\nX-Evil: 1", url], fragment: "bad --user-agent: the value of header 'User-Agent' contains CR, LF or NUL"),
        // argument-parser reads -abc as -a -b -c: the h of a glued password must not ask for help.
        BadInput(args: ["-Hhunter2", url], fragment: "unknown option '-H'", never: ["hunter2"]),
        BadInput(args: ["--force=hunter2", url], fragment: "option '--force' takes no value", never: ["hunter2"]),
        BadInput(args: ["-Afoo", url], fragment: "unknown option '-A'"),
        // Header injection through -F: the part's header lines (as -H, -A, -u and -b refuse).
        BadInput(args: ["-F", "file=@{dir}/p.txt;type=text/plain\r\nX-Inj: 1", url], files: ["p.txt": BadInput.text("hi\n")],
                 fragment: "type= contains CR, LF or NUL"),
        BadInput(args: ["-F", "file=@{dir}/p.txt;filename=a\nX-Inj: 1", url], files: ["p.txt": BadInput.text("hi\n")],
                 fragment: "filename= contains CR, LF or NUL"),
        BadInput(args: ["-F", "na\rme=v", url], fragment: "the field name contains CR, LF or NUL"),
        BadInput(args: ["-F", "f=@/dev/zero", url], fragment: "--form file '/dev/zero' is a device; a form sends regular files"),
        // Control characters: refused where they enter, named escaped.
        BadInput(args: ["-A", "ua\u{1}", url], fragment: "bad --user-agent 'ua\\x01': it contains a control character"),
        BadInput(args: ["-A", "ua\u{1B}]0;x\u{7}", url], fragment: "it contains a control character", never: ["\u{1B}"]),
        BadInput(args: ["--job", "{dir}/j.toml"],
                 files: ["j.toml": BadInput.text("[[session]]\nname = \"a\\u001b]0;x\\u0007\"\n[[session.task]]\nurl = \"\(url)\"\n")],
                 fragment: "j.toml:2: field 'name': must not contain control characters, not \"a\\x1B]0;x\\x07\"", never: ["\u{1B}"]),
        // Two outputs, or an output and an input, that are one file: refused before any transfer.
        BadInput(args: ["--csv", "{dir}/a.csv", "--har", "{dir}/a.csv", url], fragment: "--csv '{dir}/a.csv' and --har '{dir}/a.csv' name the same file"),
        BadInput(args: ["-o", "{dir}/out.csv", "--csv", "{dir}/out.csv", url], fragment: "and --output-dir '{dir}/out.csv' name the same file"),
        BadInput(args: ["--har", "{dir}/t.har", "-c", "{dir}/./t.har", url], fragment: "name the same file"),
        BadInput(args: ["--csv", "{dir}/up.txt", "-T", "{dir}/up.txt", url], files: ["up.txt": BadInput.text("x")],
                 fragment: "--csv '{dir}/up.txt' and --upload '{dir}/up.txt' name the same file"),
        // -i lists: the encoding is named with the line, and an empty list is said to be empty.
        BadInput(args: ["-i", "{dir}/latin1.txt"], files: ["latin1.txt": BadInput.text("\(url)\n") + [0x68, 0x74, 0x74, 0x70, 0xE9, 0x0A]],
                 fragment: "input file '{dir}/latin1.txt': line 2 is not UTF-8 text"),
        BadInput(args: ["-i", "/dev/null"], fragment: "input file '/dev/null' lists no URLs"),
        // A device that never ends stops at a limit, not when memory runs out.
        BadInput(args: ["-i", "/dev/zero"], fragment: "input file '/dev/zero': line 1 is longer than 1 MiB"),
        BadInput(args: ["--job", "/dev/zero"], fragment: "job file '/dev/zero': line 1 is longer than 1 MiB"),
        BadInput(args: ["-i", "{dir}/comments.txt"], files: ["comments.txt": BadInput.text("# nothing yet\n\n")],
                 fragment: "lists no URLs"),
        // Ports: 1-65535, checked with the URL (the list's quick path too).
        BadInput(args: ["http://127.0.0.1:99999/x"], fragment: "port 99999 in 'http://127.0.0.1:99999/x' is not from 1 to 65535"),
        BadInput(args: ["http://127.0.0.1:0/x"], fragment: "port 0 in"),
        BadInput(args: ["http://127.0.0.1:99999999999999999999999/x"], fragment: "port 99999999999999999999999 in"),
        BadInput(args: ["http://u:p@[::1]:99999999999999999999999/x"], fragment: "port 99999999999999999999999 in"),
        BadInput(args: ["-i", "{dir}/bigport.txt"], files: ["bigport.txt": BadInput.text("\(url)\nhttp://h:18446744073709551616/y\n")],
                 fragment: "line 2: port 18446744073709551616 in"),
        BadInput(args: ["-i", "{dir}/ports.txt"], files: ["ports.txt": BadInput.text("\(url)\nhttp://127.0.0.1:65536/y\n")],
                 fragment: "line 2: port 65536 in"),
        // A FIFO or device upload is read once, as -T - is.
        BadInput(args: ["-T", "/dev/zero", url, url + "2"], fragment: "--upload '/dev/zero' is a device: it is read once, so give exactly one URL"),
        // A segmented upload needs a regular file of known size.
        BadInput(args: ["--segments", "2", "-T", "/dev/zero", url], fragment: "--segments needs a regular file of known size; '/dev/zero' is not one"),
        // --netrc-file: a syntax libcurl would refuse at every request is a usage error now.
        BadInput(args: ["--netrc-file", "{dir}/n", url], files: ["n": BadInput.text("# ok\nmachine 127.0.0.1\n login \"al password hunter2\n")],
                 fragment: "netrc file '{dir}/n', line 3: a quoted value has no closing quote on its line", never: ["hunter2"]),
        BadInput(args: ["--netrc-file", "/dev/null", url], fragment: "netrc file '/dev/null' is not a regular file"),
        // --cacert, --cert, --key are read again when connecting: regular files only.
        BadInput(args: ["--cacert", "/dev/zero", url], fragment: "--cacert file '/dev/zero' is a device, not a regular file"),
        // The state directory: one line naming the path and the reason (no NSError text).
        BadInput(args: ["--background", "q", url], files: ["state": BadInput.text("a file, not a directory")], status: 1,
                 fragment: "cannot create '{dir}/state/transfertop': '{dir}/state' is not a directory", never: ["NSCocoaErrorDomain", "Error Domain"]),
        // A job-file URL with a password is not echoed when it is bad.
        BadInput(args: ["--job", "{dir}/j.toml"],
                 files: ["j.toml": BadInput.text("[[session]]\n[[session.task]]\nurl = \"gopher://u:hunter2@h/x\"\n")],
                 fragment: "unsupported scheme 'gopher'", never: ["hunter2"]),
    ]

    @Test(arguments: rows) func refused(_ row: BadInput) async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for d in row.directories { try FileManager.default.createDirectory(atPath: dir + "/" + d, withIntermediateDirectories: true) }
        for (name, size) in row.sparse {
            let fd = creat(dir + "/" + name, 0o600)
            #expect(fd >= 0 && ftruncate(fd, off_t(size)) == 0)
            close(fd)
        }
        for (name, bytes) in row.files {
            let path = dir + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        let args = row.args.map { $0.replacingOccurrences(of: "{dir}", with: dir) }
        let r = try await Run.binary(args, environment: ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"])
        #expect(r.status == row.status, "\(r.stderr)")
        #expect(r.stderr.contains(row.fragment.replacingOccurrences(of: "{dir}", with: dir)), "\(r.stderr)")
        for secret in row.never { #expect(!r.stderr.contains(secret) && !r.stdout.contains(secret), "\(r.stderr)") }
        // Nothing was created for an export that was refused, and old files are untouched.
        if let old = row.files["old.csv"] { #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/old.csv")) == Data(old)) }
    }

    #if OpenTelemetry
    static let otlpRefusal = "--otlp must be an http:// or https:// URL of an OpenTelemetry collector (OTLP/HTTP), not 'grpc://127.0.0.1:4317'"
    #else
    static let otlpRefusal = "--otlp: this build of transfertop has no OpenTelemetry support"
    #endif

    /// The matrix grows with every option: each one the root command declares (as
    /// argument-parser reports it) appears in some row.
    @Test func everyOptionHasARow() throws {
        let used = Set(Self.rows.flatMap(\.args).map { $0.split(separator: "=").first.map(String.init) ?? $0 })
        let info = try ToolInfo.decode(TransferTopCommand._dumpHelp())
        for a in info.command.arguments ?? [] where !ManualPage.isBuiltIn(a) {
            let names = (a.names ?? []).map(\.spelled)
            #expect(names.contains(where: used.contains), "no bad-input row for \(names)")
        }
    }
}
