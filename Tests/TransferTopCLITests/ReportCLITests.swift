import Foundation
import PropertyBased
import RunEvidence
import TestSupport
import Testing
import TransferTopUI
@testable import TransferTopCLI
@testable import TransferTopRun

/// `report`'s command line: what it takes, what it refuses (exit 2, one clear line), and the
/// theme's colours on the page.
@Suite struct ReportCLITests {
    static let csv = """
    session,task_id,task_kind,hop,method,url,status,protocol,remote_address,remote_port,local_port,reused,tls_version,cipher,fetch_start,queued_ms,dns_ms,connect_ms,tls_ms,request_ms,wait_ms,receive_ms,ttfb_ms,total_ms,request_header_bytes,request_body_bytes,response_header_bytes,response_body_bytes,error,session_id\r
    s,1,data,1,GET,http://a.example/x,200,http/1.1,127.0.0.1,80,5000,false,,,2026-01-02T12:00:00.000Z,0.100,1.000,2.000,,0.500,10.000,1.000,13.500,14.600,100,0,200,1000,,1\r

    """

    @Test func parsesItsArguments() throws {
        let c = try TransferTopCommand.command(from: ["report", "a.csv", "b.har", "-o", "r.html", "--theme", "light", "--force"])
        #expect(c == .report(ReportRequest(run: "a.csv", after: "b.har", output: "r.html", text: false, theme: "light", force: true)))
        let t = try TransferTopCommand.command(from: ["report", "a.har", "--format", "text"])
        #expect(t == .report(ReportRequest(run: "a.har", after: nil, output: nil, text: true, theme: "default", force: false)))
        for (args, fragment) in [(["report"], "missing expected argument"), (["report", "a.csv", "--format", "pdf"], "--format must be html or text"),
                                 (["report", "a.csv", "-H", "X: y"], "'report' takes no transfer options"),
                                 (["report", "a", "b", "c"], "unexpected argument")] {
            do {
                _ = try TransferTopCommand.command(from: args)
                Issue.record("\(args) parsed")
            } catch { #expect(error.reason.lowercased().contains(fragment.lowercased()), "\(args): \(error.reason)") }
        }
    }

    @Test func badFilesExitTwoAndNothingIsWritten() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.csv.write(toFile: dir + "/run.csv", atomically: true, encoding: .utf8)
        try "a,b\n1,2\n".write(toFile: dir + "/other.csv", atomically: true, encoding: .utf8)
        try "{\"log\": 1}".write(toFile: dir + "/bad.har", atomically: true, encoding: .utf8)
        try Data([0x66, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: dir + "/binary.csv"))
        try "old".write(toFile: dir + "/exists.html", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling.html", withDestinationPath: dir + "/nowhere")
        for (args, fragment) in [
            ([dir + "/missing.csv"], "cannot read run export '\(dir)/missing.csv'"),
            ([dir + "/other.csv"], "not a transfertop --csv export (no column 'url'"),
            ([dir + "/bad.har"], "not a HAR file (wrong type at .log)"),
            ([dir + "/binary.csv"], "is not UTF-8 text"),
            ([dir], "it is a directory"),
            ([dir + "/run.csv", dir + "/other.csv"], "not a transfertop --csv export"),
            ([dir + "/run.csv", "-o", dir + "/exists.html"], "exists (pass --force to replace it)"),
            ([dir + "/run.csv", "-o", dir + "/dangling.html"], "exists, a link to nothing (pass --force to replace it)"),
            ([dir + "/run.csv", "-o", dir + "/run.csv", "--force"], "is the export the report is made from"),
            ([dir + "/run.csv", "-o", dir], "is a directory"),
            ([dir + "/run.csv", "-o", dir + "/no/such/dir/r.html"], "cannot write"),
            ([dir + "/run.csv", "--theme", dir + "/run.csv"], "run.csv"),
        ] {
            let r = try await Run.binary(["report"] + args)
            #expect(r.status == 2, "\(args): \(r.stdout)\(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args): \(r.stdout)")
            #expect(r.stderr.contains(fragment), "\(args): \(r.stderr)")
        }
        #expect(try String(contentsOfFile: dir + "/exists.html", encoding: .utf8) == "old")
        let forced = try await Run.binary(["report", dir + "/run.csv", "-o", dir + "/exists.html", "--force"])
        #expect(forced.status == 0 && forced.stderr.isEmpty, "\(forced.stderr)")
        #expect(try String(contentsOfFile: dir + "/exists.html", encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        // Without -o the page goes to stdout.
        let out = try await Run.binary(["report", dir + "/run.csv", dir + "/run.csv"])
        #expect(out.status == 0 && out.stdout.hasPrefix("<!DOCTYPE html>") && out.stdout.contains("<section id=\"compare\">"))
    }

    /// `-o /dev/stdout` is written into without --force, as a run's exports are; a socket is
    /// refused by its kind, --force or not.
    @Test func aDeviceIsWrittenIntoAndASocketIsRefused() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.csv.write(toFile: dir + "/run.csv", atomically: true, encoding: .utf8)
        let stdout = try await Run.binary(["report", dir + "/run.csv", "-o", "/dev/stdout"])
        #expect(stdout.status == 0, "\(stdout.stderr)")
        #expect(stdout.stdout.hasPrefix("<!DOCTYPE html>"))

        let socketPath = dir + "/listening.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in socketPath.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind: \(String(cString: strerror(errno)))")
        for extra in [[], ["--force"]] {
            let r = try await Run.binary(["report", dir + "/run.csv", "-o", socketPath] + extra)
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stderr.contains("-o '\(socketPath)' is a socket; an export goes to a file, a pipe or a device"), "\(r.stderr)")
        }
        #expect(FileKind.of(socketPath) == .socket)
    }

    /// The page's colours are the theme's phase and text roles: the default palette is the
    /// built-in theme's, and another theme's colours reach the style sheet.
    @Test func thePaletteIsTheThemes() async throws {
        #expect(ReportCommand.palette(Theme.builtInDefault) == ReportPalette.default)
        var theme = Theme.builtInDefault
        theme.styles[.phaseWait] = ThemeStyle(.rgb(0x12, 0x34, 0x56))
        theme.styles[.phaseDNS] = ThemeStyle(.indexed(196))
        theme.styles[.text] = ThemeStyle(.ansi(0))
        let p = ReportCommand.palette(theme)
        #expect(p.parts[.wait] == "#123456" && p.parts[.dns] == "#ff0000" && p.text == "#000000" && p.background == "#ffffff")
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.csv.write(toFile: dir + "/run.csv", atomically: true, encoding: .utf8)
        let light = try await Run.binary(["report", dir + "/run.csv", "--theme", "light"])
        #expect(light.status == 0, "\(light.stderr)")
        #expect(!light.stdout.contains("--p-wait:\(ReportPalette.default.parts[.wait]!)") && light.stdout.contains("--p-wait:#"))
    }

    static let pieces = ["{", "}", "[", "]", ":", ",", "\"log\"", "\"entries\"", "\"request\"", "\"method\"", "\"url\"",
                         "\"timings\"", "\"wait\"", "\"time\"", "\"startedDateTime\"", "\"2026-01-02T12:00:00.000Z\"",
                         "1e308", "-1", "0", "\"<b>\"", "\"http://u:p@h/?token=x\"", "\r\n", "\n", "\"", "url", "hop",
                         "protocol", "status", "error", "dns_ms", "connect_ms", "tls_ms", "ttfb_ms", "total_ms", "fetch_start",
                         "wait_ms", "1", "2.5", "nan", "<script>", "é", "\u{0}"]
    static let text = Gen<String?>.element(of: pieces).map { $0! }.array(of: 0...40).map { $0.joined() }

    /// Any text read as an export either is refused with a reason or makes a page and a text
    /// report without crashing, with no markup of its own.
    @Test func anyTextIsRefusedOrReported() async {
        let header = "url,hop,protocol,status,error,dns_ms,connect_ms,tls_ms,ttfb_ms,total_ms,fetch_start,wait_ms\n"
        await propertyCheck(count: 400, input: Self.text) { body in
            for text in [body, header + body] {
                do {
                    let hops = try RunFile.hops(text, name: "x")
                    let report = RunReport(name: "x", hops: hops, compareWith: ("y", hops))
                    let page = ReportHTML.page(report)
                    #expect(!page.contains("<b>") && page.components(separatedBy: "<script").count == 2, "\(text)")
                    _ = ReportText.lines(report)
                } catch let error as CSVRun.ReadError {
                    #expect(!error.reason.isEmpty)
                } catch {
                    Issue.record("\(text): \(error)")
                }
            }
        }
    }
}
