import Foundation
import LoopbackServer
import RunEvidence
import TestSupport
import Testing
import TransferTopUI
@testable import TransferTopCLI

/// `report` end to end: a real run against the loopback server's HTTP/1.1 and h2 hosts (the
/// h2 one slowed), its `--csv` and `--har` exports, the report, and a real browser (Debian's
/// headless `chromium`, installed by scripts/setup) that loads the file from disk: what it
/// drew is read back from its DOM and from the pixels of its screenshot. One test, so the
/// browser starts twice per suite, not per check.
@Suite struct ReportBrowserTests {
    static let perHost = 8
    static let delayMs = 200

    @Test func aBrowserDrawsTheWaterfallHistogramsAndTables() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ca = dir + "/ca.pem"
        try server.writeCACertificate(to: ca)
        // Plain hops, a redirect chain (three hops in one task), a 404 (an error row), and the
        // slowed h2 host; a query secret that the exports redact and the report must not show.
        var urls = (0..<Self.perHost).flatMap { i in
            ["\(server.httpBase)/bytes/2000?seed=\(i)", "\(server.httpsBase)/delay?ms=\(Self.delayMs)&size=100&seed=\(i)"]
        }
        urls += ["\(server.httpBase)/redirect/2?token=hunter2secret", "\(server.httpBase)/status/404"]
        // `--request-timeout 3600`: nothing here may time out on a starved machine (DECISIONS 167).
        let run = try await Run.binary(["--no-tui", "-o", dir + "/files", "--csv", dir + "/run.csv", "--har", dir + "/run.har",
                                        "--cacert", ca, "--request-timeout", "3600"] + urls)
        #expect(run.status == 1, "the 404 fails the run: \(run.stdout)\(run.stderr)")
        let hops = Self.perHost * 2 + 3 + 1

        let made = try await Run.binary(["report", dir + "/run.csv", "-o", dir + "/report.html"])
        #expect(made.status == 0 && made.stdout.isEmpty, "\(made.stdout)\(made.stderr)")
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        #expect(!html.contains("hunter2secret"))

        // The DOM after the page's script ran, zoomed by its address to the first 50 ms.
        let dom = try await Self.chromium(["--dump-dom", "file://\(dir)/report.html#t=0-50"], dir: dir)
        #expect(Self.count("class=\"row hop", in: dom) == hops, "one waterfall row per hop")
        #expect(Self.count("<details open=\"\" class=\"task\"", in: dom) == 1, "the redirect chain is one task")
        #expect(dom.contains("data-from=\"0.0\" data-to=\"50.0\""), "the zoom was applied from the address")
        let h1 = "127.0.0.1:\(server.httpPort)", h2 = "localhost:\(server.httpsPort)"
        #expect(dom.contains("data-host=\"\(h1)\" data-protocol=\"http/1.1\""))
        #expect(dom.contains("data-host=\"\(h2)\" data-protocol=\"h2\""))
        #expect(Self.count("<table class=\"percentiles\">", in: dom) == 2)
        #expect(Self.count("<figure class=\"histogram\" data-phase=\"ttfb\"", in: dom) == 2)
        #expect(Self.count("<tr class=\"error\">", in: dom) == 1 && dom.contains("/status/404"))
        #expect(dom.contains("<section id=\"slowest\">") && dom.contains("delay?ms=\(Self.delayMs)"))

        // The pixels, of the page zoomed to the slowed hop with the longest wait. The legend's
        // swatches are translucent, so a pixel of exactly a phase colour is a bar. Above
        // `split` is the waterfall (a fixed 15 px a row, under a header of about 230 px; the
        // first histogram is some 300 px below the last row): there that hop's wait fills
        // its share of the track (at least 300 px wide). Below, each histogram has a bar of
        // full height in its phase's colour. (A part of a millisecond at the whole run's
        // scale is a blended sliver on a loaded machine: only the zoom makes it count.)
        let report = RunReport(name: "run", hops: try RunFile.hops(String(contentsOfFile: dir + "/run.csv", encoding: .utf8), name: "run"))
        let slow = try #require(report.waterfall.flatMap(\.hops).filter { $0.url.contains("/delay?") }.max { ($0.parts[.wait] ?? 0) < ($1.parts[.wait] ?? 0) })
        let from = try #require(report.offsetMs(slow)), share = (slow.parts[.wait] ?? 0) / slow.barMs
        let shot = dir + "/shot.png"
        _ = try await Self.chromium(["--hide-scrollbars", "--window-size=1200,1600", "--screenshot=\(shot)",
                                     "file://\(dir)/report.html#t=" + String(format: "%.3f-%.3f", from, from + slow.barMs)], dir: dir)
        let palette = ReportPalette.default
        let split = 260 + 15 * (hops + 2) + 100
        let parts: [HopPart] = [.dns, .connect, .tls, .wait, .receive]
        let (waterfall, below) = try await Self.pixelCounts(shot, split: split, parts.map { palette.parts[$0]! } + [palette.background])
        func count(_ counts: [String: Int], _ part: HopPart) -> Int { counts[palette.parts[part]!] ?? 0 }
        // (On a loaded machine the wait may be a small share: its TLS handshake or queue took longer.)
        #expect(Double(count(waterfall, .wait)) > max(100, 11 * 300 * share), "\(share) of \(slow.parts): \(waterfall)")
        for part in parts { #expect(count(below, part) > 150, "\(part): \(below)") }
        #expect((waterfall[palette.background] ?? 0) + (below[palette.background] ?? 0) > 100_000, "the page's background")
        print("report screenshot, pixels per colour above and below \(split): \(waterfall) \(below)")

        // The HAR of the same run reads to the same rows; compare takes HAR too.
        let fromHAR = try await Run.binary(["report", dir + "/run.har", "--format", "text"])
        let fromCSV = try await Run.binary(["report", dir + "/run.csv", "--format", "text"])
        #expect(fromHAR.status == 0 && fromCSV.status == 0, "\(fromHAR.stderr)\(fromCSV.stderr)")
        #expect(fromHAR.stdout.contains(" \(hops) hops in \(Self.perHost * 2 + 2) tasks"), "\(fromHAR.stdout)")
        #expect(fromCSV.stdout.contains(" \(hops) hops in \(Self.perHost * 2 + 2) tasks"), "\(fromCSV.stdout)")
        #expect(fromCSV.stdout.contains("\(h2)  h2  \(Self.perHost) hops, 0 errors"), "\(fromCSV.stdout)")
        #expect(fromCSV.stdout.contains("ERRORS (1)") && !fromCSV.stdout.contains("hunter2secret"))
        let compared = try await Run.binary(["compare", dir + "/run.csv", dir + "/run.har"])
        #expect(compared.status == 0, "\(compared.stdout)\(compared.stderr)")
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// Headless Chromium as a container runs it, with a profile of its own (a second suite
    /// beside this one has its own); stdout is what it printed.
    static func chromium(_ args: [String], dir: String) async throws -> String {
        let path = "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure("\(path) is missing: scripts/setup installs Debian's chromium")
        }
        let profile = dir + "/chromium-\(UUID().uuidString.prefix(8))"
        let r = try await Run.spawn(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                                     "--user-data-dir=\(profile)"] + args, executable: path).wait()
        guard r.status == 0 else { throw TestFailure("chromium exited \(r.status): \(r.stderr.suffix(2000))") }
        return r.stdout
    }

    /// How many pixels of the PNG have each colour exactly, above row `split` and from it
    /// down, read by python3's zlib (no image library): the chunks, the inflated rows, the
    /// five PNG filters undone.
    static func pixelCounts(_ png: String, split: Int, _ colours: [String]) async throws -> ([String: Int], [String: Int]) {
        let r = try await Run.spawn(["-c", pngScript, png, String(split)] + colours, executable: "/usr/bin/python3").wait()
        guard r.status == 0, let both = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Int]], both.count == 2 else {
            throw TestFailure("python3 could not read \(png): \(r.stdout)\(r.stderr)")
        }
        return (both[0], both[1])
    }

    static let pngScript = """
    import json, struct, sys, zlib
    data = open(sys.argv[1], 'rb').read()
    assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'not a PNG'
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        elif kind == b'IEND':
            break
    assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    split = int(sys.argv[2])
    wanted = {bytes.fromhex(c[1:]): c for c in sys.argv[3:]}
    counts = [{c: 0 for c in sys.argv[3:]}, {c: 0 for c in sys.argv[3:]}]
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride): line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        band = counts[0 if y < split else 1]
        for x in range(0, stride, bpp):
            key = bytes(line[x:x + 3])
            if key in wanted: band[wanted[key]] += 1
        prev = line
    print(json.dumps(counts))
    """
}
