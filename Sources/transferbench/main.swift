// transferbench: runs ONE client on ONE case per invocation and prints one machine-readable
// line, so scripts/bench can alternate clients and measure each in its own process.
//
//   transferbench <tk|foundation> <bulk|disk|small> URL [OUT_PATH | COUNT]
//
//   bulk   GET URL, body discarded in memory (data task + delegate that drops each chunk)
//   disk   GET URL to disk (download task; the temp file is moved to OUT_PATH, timed)
//   transferbench serve [CAFILE]
//          runs the tests' loopback server (HTTP/1.1) and prints its base URL: the server
//          of scripts/bench's cliupseg case, which takes segmented PUTs (/segments/NAME)
//          and plain uploads (/echo) alike. With CAFILE, also writes the server's CA there
//          and prints the HTTPS (h2) base on a second line
//
//   transferbench phases URL CAFILE COUNT
//          COUNT fresh requests, one session each, printing their DNS, connect, TLS and TTFB
//          (`Phases`; the in-process side of MetricsTruthTests)
//
//   transferbench background IDENTIFIER [--header 'Name: value'] [--data] [--invalidate] [--resume-restored] [--progress]
//          [--signal-invalidates] [--upload FILE] [--save-resume FILE] [--resume-from FILE]
//          [--request-timeout SECONDS] [URL...]
//          a background session's library process, printing its delegate calls
//          (`BackgroundRun`; the tests kill it and start it again to re-attach)
//
//   small  COUNT (default 5000) GETs of URL on one session, 6 connections per host,
//          all submitted at once with completion handlers
//          (client `tkwindow`: TransferKit with at most 24 tasks in flight instead)
//
// Output (one line on stdout):
//   RESULT client=.. case=.. wall=SECONDS bytes=N ok=N failed=N cpu=SECONDS maxrss_kb=N
// `wall` is measured in-process from just before the session is created to the last
// completion; `cpu` and `maxrss_kb` come from getrusage(RUSAGE_SELF) for the whole process.
// The exit status is non-zero when any request failed or was not a 200.
import Foundation

struct Outcome {
    var bytes: Int64 = 0
    var ok = 0
    var failed = 0
    var note = ""
}

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: transferbench <tk|tkwindow|foundation> <bulk|disk|small> URL [OUT_PATH|COUNT]\n".utf8))
    exit(2)
}

let args = CommandLine.arguments
if (2...3).contains(args.count), args[1] == "serve" { Serve.run(caFile: args.count == 3 ? args[2] : nil) }
if args.count >= 3, args[1] == "background" { BackgroundRun.run(Array(args.dropFirst(2))) }
if args.count == 5, args[1] == "phases", let u = URL(string: args[2]), let n = Int(args[4]) {
    Phases.run(u, caFile: args[3], count: n)
}
guard args.count >= 4, let url = URL(string: args[3]) else { usage() }
let client = args[1], benchCase = args[2]
let extra = args.count > 4 ? args[4] : nil

func nowSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

let start = nowSeconds()
let outcome: Outcome
switch (client, benchCase) {
case ("tk", "bulk"): outcome = TKBench.bulk(url)
case ("tk", "disk"): outcome = TKBench.disk(url, to: URL(fileURLWithPath: extra ?? "/tmp/transferbench.out"))
case ("tk", "small"): outcome = TKBench.small(url, count: Int(extra ?? "") ?? 5000)
case ("tkwindow", "small"): outcome = TKBench.small(url, count: Int(extra ?? "") ?? 5000, window: 24)
case ("foundation", "bulk"): outcome = FoundationBench.bulk(url)
case ("foundation", "disk"): outcome = FoundationBench.disk(url, to: URL(fileURLWithPath: extra ?? "/tmp/transferbench.out"))
case ("foundation", "small"): outcome = FoundationBench.small(url, count: Int(extra ?? "") ?? 5000)
default: usage()
}
let wall = nowSeconds() - start

var ru = rusage()
getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &ru)
func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
let cpu: Double = seconds(ru.ru_utime) + seconds(ru.ru_stime)
let line = "RESULT client=\(client) case=\(benchCase) wall=\(String(format: "%.6f", wall)) bytes=\(outcome.bytes) "
    + "ok=\(outcome.ok) failed=\(outcome.failed) cpu=\(String(format: "%.3f", cpu)) maxrss_kb=\(ru.ru_maxrss)"
    + (outcome.note.isEmpty ? "" : " note=\(outcome.note.replacingOccurrences(of: " ", with: "_"))")
print(line)
exit(outcome.failed == 0 ? 0 : 1)
