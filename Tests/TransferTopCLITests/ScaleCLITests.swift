import Foundation
import LoopbackServer
import TestSupport
import Testing
import TransferModel
@testable import TransferTopCLI
@testable import TransferTopRun

/// Through the binary: partials beside their destination and none left behind,
/// `clean`, the stale-partials note, and input files checked line by line before any transfer.
@Suite(.serialized) struct ScaleCLITests {
    @Test func aRunLeavesNoPartialAndNotesAnEarlierRunsOrphan() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/.gone.bin.ttpart"))
        let list = dir + "/list.txt"
        let urls = (1...40).map { "\(server.httpBase)/bytes/\($0 * 3000)?seed=2" }
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let r = try await Run.binary(["--no-tui", "-o", dir, "-i", list], environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("1 partial download(s) from an earlier run in \(dir)"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.filter { $0.hasSuffix(".ttpart") } == [".gone.bin.ttpart"])
        for n in 1...40 {
            let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/\(n * 3000)"))
            #expect(data == Data(LoopbackServer.body(size: n * 3000, seed: 2)))
        }
    }

    /// Many URLs with one file name: each finished download's hidden partial name is free again
    /// once it is placed, and the next task takes it at once. Removing the placed file's old
    /// name afterwards used to delete that next task's partial (28 of 200 failed).
    @Test func manyDownloadsWithOneNameAllArrive() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let list = dir + "/list.txt"
        let urls = (1...200).map { "\(server.httpBase)/bytes/700?seed=\($0)" }
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let r = try await Run.binary(["--no-tui", "-o", out, "-i", list], environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(names.count == 200 && !names.contains { $0.hasSuffix(".ttpart") })
        let bodies = Set(try names.map { try Data(contentsOf: URL(fileURLWithPath: out + "/" + $0)) })
        #expect(bodies == Set((1...200).map { Data(LoopbackServer.body(size: 700, seed: $0)) }))
    }

    @Test func cleanListsThenDeletesOrphansButNotLivePartials() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(count: 5).write(to: URL(fileURLWithPath: dir + "/.a.bin.ttpart"))
        try Data(count: 7).write(to: URL(fileURLWithPath: dir + "/.b.bin.2.ttpart"))
        try Data(count: 1).write(to: URL(fileURLWithPath: dir + "/c.bin"))
        // A live download holds its partial locked: never stale.
        let live = dir + "/.live.bin.ttpart"
        let fd = open(live, O_CREAT | O_WRONLY, 0o600)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)

        // A name is anybody's text: its escape sequence is shown, not sent to the terminal.
        try Data(count: 3).write(to: URL(fileURLWithPath: dir + "/.\u{1B}[31m.ttpart"))

        let dry = try await Run.binary(["clean", dir])
        #expect(dry.status == 0)
        #expect(!dry.stdout.contains("\u{1B}") && dry.stdout.contains("(3 bytes"), "\(dry.stdout)")
        #expect(dry.stdout.contains("stale \(dir)/.a.bin.ttpart  (5 bytes, for a.bin)"))
        #expect(dry.stdout.contains("stale \(dir)/.b.bin.2.ttpart  (7 bytes, for b.bin)"))
        #expect(!dry.stdout.contains("live.bin"))
        #expect(dry.stdout.contains("3 stale partial download(s), 15 bytes"))
        #expect(FileManager.default.fileExists(atPath: dir + "/.a.bin.ttpart"))

        let yes = try await Run.binary(["clean", dir, "--yes"])
        #expect(yes.status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(left == [".live.bin.ttpart", "c.bin"])
        #expect(try await Run.binary(["clean", dir]).stdout.contains("no stale partial downloads"))
        #expect(try await Run.binary(["clean", "--bogus"]).status == 2)
    }

    @Test func badInputLinesAreListedByNumberBeforeAnyTransfer() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let list = dir + "/list.txt"
        try "# urls\nhttp://127.0.0.1:1/a\n\nnot a url\r\nhttp://127.0.0.1:1/b\ngopher://x/y\n".write(toFile: list, atomically: true, encoding: .utf8)
        let r = try await Run.binary(["--no-tui", "-o", dir, "-i", list])
        #expect(r.status == 2)
        #expect(r.stderr.contains("input file '\(list)' has 2 bad line(s): line 4: not a URL: 'not a url'; line 6: unsupported scheme 'gopher'"))
        #expect(r.stdout.isEmpty)
    }

    /// Lines that skip the URL parser (`URLText.isPlainHTTP`) are exactly lines the parser
    /// accepts unchanged: every line of this table gives the same answer both ways.
    @Test(arguments: [
        "http://127.0.0.1:8080/s/1", "https://example.org/a/b.tar.gz?x=1&y=2#frag", "HTTP://Host.Example/x",
        "http://h", "http://h/", "http://h?q", "http://h:1/", "http://a-b.c-d.example/x_~!$&'()*+,;=:@/",
        "http://h:123456/", "http://h:/x", "http://:80/", "http://.h/", "http:/h/", "ftp://h/", "http://h/a b",
        "http://h/%20", "http://[::1]:80/x", "http://user:pw@h/", "http://h/<x>", "http://h/caf\u{e9}", "https//h/",
        "http://h/{x}", "http://h/a[1]", "http://-h/", "http\u{1A}//h/", "HtTpS://h/", "http:\u{0F}/h/",
    ])
    func thePlainURLFastPathAgreesWithTheParser(_ line: String) {
        if URLText.isPlainHTTP(Substring(line)) {
            let parsed = try? URLCheck.checkURL(line)
            #expect(parsed?.absoluteString == line, "fast path took '\(line)', the parser gives \(String(describing: parsed))")
        }
        let viaFile = try? InputFile.parseURLs(in: line + "\n", file: "list")
        let viaParser = try? URLCheck.checkURL(line).absoluteString
        #expect(viaFile?.first == viaParser, "'\(line)': \(String(describing: viaFile)) vs \(String(describing: viaParser))")
    }

    @Test func numberedLinesSkipBlanksAndComments() {
        let lines = InputFile.numberedLines(in: "# c\nhttp://a/\n\n  http://b/  \r\n#x\n")
        #expect(lines.map(\.line) == [2, 4])
        #expect(lines.map { String($0.text) } == ["http://a/", "http://b/"])
        // No final newline, a lone CR line, a comment after blanks: the same rules.
        let more = InputFile.numberedLines(in: "\r\n \t# c\nhttp://c/")
        #expect(more.map(\.line) == [3] && more.first.map { String($0.text) } == "http://c/")
    }

    /// Duplicates are found by hash and confirmed by comparing the strings: with every hash
    /// equal (forced), distinct URLs are all kept and only true repeats go, in the list's
    /// reader (which goes on from the command line's URLs) as in the plan's check.
    @Test(arguments: [false, true]) func duplicatesAreExactEvenWhenHashesCollide(_ collide: Bool) throws {
        let urls = ["http://h/a", "http://h/b", "http://h/a", "http://h/c", "http://h/b", "http://h/b", "http://h/d"]
        let hash: FirstOccurrences.Hashing = collide ? .constant(7) : .standard
        var seen = FirstOccurrences(hashing: hash)
        #expect(urls.filter { seen.isFirst($0) } == ["http://h/a", "http://h/b", "http://h/c", "http://h/d"])
        var plan = SessionPlan(name: "s")
        plan.tasks = [TaskPlan(kind: .download, url: URL(string: "http://h/c")!)]
        plan.downloadURLs = urls
        var planSeen = FirstOccurrences(hashing: hash)
        #expect(plan.dropDuplicateDownloads(seen: &planSeen) == 4)
        var listSeen = planSeen
        var repeats = 0
        let listed = try InputFile.parseURLs(in: "http://h/e\nhttp://h/a\n# x\nhttp://h/e\n", file: "l", seen: &listSeen, repeats: &repeats)
        #expect(listed == ["http://h/e"] && repeats == 2)
        #expect(plan.downloadURLs == ["http://h/a", "http://h/b", "http://h/d"])
    }
}

@Suite(.serialized) struct CrashRecoveryTests {
    /// `kill -9` mid-download: the partial and its crash-recovery record stay; the same command
    /// continues after the bytes on disk with a Range request and ends byte-exact.
    @Test func killedRunIsContinuedByTheSameCommand() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let size = 1_200_000
        server.setFile("big.bin", size: size, seed: 5)
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_STATE_HOME": dir + "/state"]
        let out = dir + "/out"
        // 600 kB, then the rest waits at a gate: the kill surely lands mid-download.
        let gate = UUID().uuidString
        let args = ["--no-tui", "--request-timeout", "3600", "-o", out, "\(server.httpBase)/files/big.bin?gate=\(gate)&holdAfter=600000"]
        let first = try Run.spawn(args, environment: env)
        let partial = out + "/.big.bin.ttpart"
        let records = dir + "/state/transfertop/resume"
        // The partial on disk and a whole crash-recovery record (`.resume`, not the temporary
        // file it is written through): only then does a kill -9 leave something to continue.
        try await waitFor("the partial and its record") {
            fileSize(partial) >= 200_000
                && ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).contains { $0.hasSuffix(".resume") }
        }
        first.signal(SIGKILL)
        _ = await first.wait()
        let kept = fileSize(partial)
        #expect(kept >= 200_000 && kept < size)

        server.resetStats()
        server.openGate(gate)
        let r = try await Run.binary(args, environment: env)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("resuming"))
        #expect(server.stats.requests.contains { $0.header("Range") != nil })
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/big.bin"))
        #expect(data == Data(LoopbackServer.body(size: size, seed: 5)))
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).isEmpty)
    }
}
