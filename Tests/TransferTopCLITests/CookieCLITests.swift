import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopRun

/// In the CLI: `-c FILE` writes the run's cookies at the end (Netscape format,
/// 0600) so that curl reads them; `-b FILE` sends them in the next run; `-b NAME=VALUE` sends
/// a cookie string. The loopback server's `/cookies/set?K=V` sets cookies, `/cookies` echoes
/// the Cookie header it got.
@Suite struct CookieCLITests {
    func env(_ dir: String) -> [String: String] { ["XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"] }

    @Test func aJarWrittenByOneRunIsSentByTheNextAndReadByCurl() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let jar = dir + "/jar.txt"
        let first = try await Run.binary(["--no-tui", "-c", jar, "-o", dir + "/a", "\(server.httpBase)/cookies/set?sid=abc123"],
                                         environment: env(dir))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let text = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(text.contains("\tsid\tabc123"), "\(text)")
        let mode = (try FileManager.default.attributesOfItem(atPath: jar)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)

        let second = try await Run.binary(["--no-tui", "-b", jar, "-o", dir + "/b", "\(server.httpBase)/cookies"], environment: env(dir))
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(try String(contentsOfFile: dir + "/b/cookies", encoding: .utf8).contains("\"sid\":\"abc123\""))

        let curl = try await offPool { try ToolRun.runBlocking("/usr/bin/curl", ["-s", "-b", jar, "\(server.httpBase)/cookies"]).output }
        #expect(curl.contains("\"sid\":\"abc123\""), "\(curl)")
    }

    /// A jar of 400 cookies for one host (56 bytes each): the jar keeps 180
    /// of the host, and a request carries 150 of them in a header within 8190 bytes, as curl
    /// bounds it, instead of one the server would refuse.
    @Test func aFloodOfCookiesIsBoundedInTheJarAndInTheRequest() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let jar = dir + "/jar.txt", saved = dir + "/saved.txt"
        let value = String(repeating: "v", count: 50)
        let lines = (1000..<1400).map { "127.0.0.1\tFALSE\t/\tFALSE\t0\tc\($0)\t\(value)" }
        try (lines.joined(separator: "\n") + "\n").write(toFile: jar, atomically: true, encoding: .utf8)
        let r = try await Run.binary(["--no-tui", "-b", jar, "-c", saved, "-o", dir + "/out", "\(server.httpBase)/cookies"],
                                     environment: env(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let echoed = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/cookies"))) as? [String: Any])
        let header = try #require(echoed["cookie"] as? String)
        #expect(header.utf8.count <= 8190)
        // "cNNNN=" and 50 bytes, "; " between: 141 pairs are 8176 bytes, a 142nd would be 8234.
        #expect(header.components(separatedBy: "; ").count == 141, "\(header.prefix(200))")
        let kept = try String(contentsOfFile: saved, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("127.0.0.1\t") }
        #expect(kept.count == 180)
    }

    /// A jar or an export that names a pipe or a device (`-c /dev/null`, `--csv >(…)`) is
    /// written into, as curl writes there: the node stays what it was. Renaming a file over it
    /// replaced the node, which run as root was the system's /dev/null.
    @Test func aJarAndExportsThatAreFIFOsAreWrittenIntoAndStayFIFOs() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (jar, csv) = (dir + "/jar.fifo", dir + "/m.fifo")
        for fifo in [jar, csv] {
            guard mkfifo(fifo, 0o600) == 0 else { throw TestFailure("mkfifo: \(String(cString: strerror(errno)))") }
        }
        // Both read ends are open before the run starts (a FIFO nobody reads is refused at
        // once); each is read on a thread of its own until its writer closes it.
        let (jarEnd, csvEnd) = (open(jar, O_RDONLY | O_NONBLOCK | O_CLOEXEC), open(csv, O_RDONLY | O_NONBLOCK | O_CLOEXEC))
        guard jarEnd >= 0, csvEnd >= 0 else { throw TestFailure("open: \(String(cString: strerror(errno)))") }
        async let jarText = offPool { Self.readAll(jarEnd) }
        async let csvText = offPool { Self.readAll(csvEnd) }
        let r = try await Run.binary(["--no-tui", "-c", jar, "--csv", csv, "-o", dir + "/a", "\(server.httpBase)/cookies/set?sid=abc123"],
                                     environment: env(dir))
        // A reader the run never wrote to (it failed first) is let go: an open and a close.
        for fifo in [jar, csv] {
            let w = open(fifo, O_WRONLY | O_NONBLOCK)
            if w >= 0 { close(w) }
        }
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(await jarText.contains("\tsid\tabc123"))
        #expect(await csvText.hasPrefix("session,"))
        for fifo in [jar, csv] {
            var st = stat()
            #expect(stat(fifo, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO, "\(fifo) is still a FIFO")
        }
    }

    /// A FIFO that nobody reads is an error at the end, not a run that never ends.
    @Test func anExportToAFIFONobodyReadsFailsAtOnce() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let csv = dir + "/m.fifo"
        guard mkfifo(csv, 0o600) == 0 else { throw TestFailure("mkfifo: \(String(cString: strerror(errno)))") }
        let r = try await Run.binary(["--no-tui", "--csv", csv, "-o", dir + "/a", "\(server.httpBase)/bytes/10"], environment: env(dir))
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("cannot write '\(csv)': nobody reads it"), "\(r.stderr)")
    }

    /// Everything written into a FIFO's read end `fd` (opened non-blocking) until its writer
    /// closes it. Linux reports the hang-up only once a writer has come and gone, so the wait
    /// starts before the writer does.
    static func readAll(_ fd: Int32) -> String {
        defer { close(fd) }
        var out: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, -1) < 0 { if errno == EINTR { continue }; break }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { break }
            out += buffer[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Devices need neither --force nor a writable directory: /dev/null is checked, not written
    /// to here (as root, a failure of this fix would replace it).
    @Test func aDeviceNeedsNoForceAndNoWritableDirectory() throws {
        #expect(throws: Never.self) { try Preflight.checkExport("/dev/null", option: "--csv", force: false, downloads: []) }
        #expect(throws: Never.self) { try Preflight.checkCookies(files: [], jar: "/dev/null") }
    }

    @Test func aCookieStringIsSentAsItIs() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "-b", "x=1; y=two", "-o", dir + "/o", "\(server.httpBase)/cookies"], environment: env(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let body = try String(contentsOfFile: dir + "/o/cookies", encoding: .utf8)
        #expect(body.contains("\"x\":\"1\"") && body.contains("\"y\":\"two\""), "\(body)")
    }

    /// A default session's store in the private XDG data directory of the test.
    func persistentEnv(_ dir: String) -> [String: String] { env(dir).merging(["XDG_DATA_HOME": dir + "/data"]) { $1 } }

    @Test func aServersCookiesReachTheNextRunThroughThePersistentStoreAndCurlReadsIt() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try await Run.binary(["--no-tui", "-o", dir + "/a", "\(server.httpBase)/cookies/keep?sid=abc123"],
                                         environment: persistentEnv(dir))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let store = dir + "/data/transfertop/cookies.txt"
        let text = try String(contentsOfFile: store, encoding: .utf8)
        #expect(text.contains("\tsid\tabc123"), "\(text)")
        let mode = (try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)

        let second = try await Run.binary(["--no-tui", "-o", dir + "/b", "\(server.httpBase)/cookies"], environment: persistentEnv(dir))
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(try String(contentsOfFile: dir + "/b/cookies", encoding: .utf8).contains("\"sid\":\"abc123\""))

        let curl = try await offPool { try ToolRun.runBlocking("/usr/bin/curl", ["-s", "-b", store, "\(server.httpBase)/cookies"]).output }
        #expect(curl.contains("\"sid\":\"abc123\""), "\(curl)")
        // Never to another host.
        let elsewhere = try await Run.binary(["--no-tui", "-o", dir + "/c", "http://localhost:\(server.httpPort)/cookies"],
                                             environment: persistentEnv(dir))
        #expect(elsewhere.status == 0, "\(elsewhere.stdout)\(elsewhere.stderr)")
        #expect(!(try String(contentsOfFile: dir + "/c/cookies", encoding: .utf8)).contains("abc123"))
    }

    @Test func anEphemeralRunLeavesNoCookieFile() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "--session", "ephemeral", "-o", dir + "/a", "\(server.httpBase)/cookies/keep?sid=abc"],
                                     environment: persistentEnv(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/data/transfertop/cookies.txt"))
        let next = try await Run.binary(["--no-tui", "-o", dir + "/b", "\(server.httpBase)/cookies"], environment: persistentEnv(dir))
        #expect(next.status == 0)
        #expect(!(try String(contentsOfFile: dir + "/b/cookies", encoding: .utf8)).contains("abc"))
    }

    @Test func aCorruptCookieFileIsANoteNotAFailure() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/jar.txt"
        try "\u{1}\u{2}binary junk\n127.0.0.1\tFALSE\t/\tFALSE\t0\tok\t1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let r = try await Run.binary(["--no-tui", "-b", file, "-o", dir + "/a", "\(server.httpBase)/cookies"], environment: persistentEnv(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("skipped 1 unreadable line of cookie file"), "\(r.stdout)")
        #expect(try String(contentsOfFile: dir + "/a/cookies", encoding: .utf8).contains("\"ok\":\"1\""))
    }

    /// A line that is not UTF-8 is skipped like any other bad line, by number; the lines
    /// around it are still sent (the whole file used to be unreadable).
    @Test func aLineThatIsNotUTF8IsSkippedAndTheOthersKept() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/jar.txt"
        let lines = ["127.0.0.1\tFALSE\t/\tFALSE\t0\tfirst\t1\n", "127.0.0.1\tFALSE\t/\tFALSE\t0\tbad\t", "\n",
                     "127.0.0.1\tFALSE\t/\tFALSE\t0\tlast\t3\n"]
        let bytes = Data(lines[0].utf8) + Data(lines[1].utf8) + Data([0xFF, 0xFE]) + Data(lines[2].utf8) + Data(lines[3].utf8)
        try bytes.write(to: URL(fileURLWithPath: file))
        let r = try await Run.binary(["--no-tui", "-b", file, "-o", dir + "/a", "\(server.httpBase)/cookies"], environment: persistentEnv(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("skipped 1 unreadable line of cookie file '\(file)' (line 2)"), "\(r.stdout)")
        let sent = try String(contentsOfFile: dir + "/a/cookies", encoding: .utf8)
        #expect(sent.contains("\"first\":\"1\"") && sent.contains("\"last\":\"3\""), "\(sent)")
        #expect(!sent.contains("bad"), "\(sent)")
    }

    /// DECISIONS 109: a `-b FILE`'s cookies are the run's own. They are sent, written by `-c`
    /// with what the servers set in the run, and never reach the persistent store, so a later
    /// run without `-b` does not send them (curl writes them nowhere without `-c`).
    @Test func aCookieFileStaysWithItsRunAndTheJarHasTheRunsCookies() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/given.txt"
        try "127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tgiven\tsecret1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let jar = dir + "/jar.txt"
        let first = try await Run.binary(["--no-tui", "-b", file, "-c", jar, "-o", dir + "/a",
                                          "\(server.httpBase)/cookies", "\(server.httpBase)/cookies/keep?srv=2"],
                                         environment: persistentEnv(dir))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(try String(contentsOfFile: dir + "/a/cookies", encoding: .utf8).contains("\"given\":\"secret1\""))
        // The server's cookie reached the store; the file's did not.
        let store = try String(contentsOfFile: dir + "/data/transfertop/cookies.txt", encoding: .utf8)
        #expect(store.contains("\tsrv\t2"), "\(store)")
        #expect(!store.contains("secret1"), "\(store)")
        // The jar: the file's cookie and the server's, 0600.
        let text = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(text.contains("\tgiven\tsecret1") && text.contains("\tsrv\t2"), "\(text)")
        let mode = (try FileManager.default.attributesOfItem(atPath: jar)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)

        let second = try await Run.binary(["--no-tui", "-o", dir + "/b", "\(server.httpBase)/cookies"], environment: persistentEnv(dir))
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        let body = try String(contentsOfFile: dir + "/b/cookies", encoding: .utf8)
        #expect(body.contains("\"srv\":\"2\"") && !body.contains("secret1"), "\(body)")
    }

    /// `-b NAME=VALUE` with a stored cookie for the same URL: one Cookie header with both.
    @Test func aCookieStringAndStoredCookiesMakeOneHeader() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try await Run.binary(["--no-tui", "-o", dir + "/a", "\(server.httpBase)/cookies/keep?sid=abc"], environment: persistentEnv(dir))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let r = try await Run.binary(["--no-tui", "-b", "x=1", "-o", dir + "/b", "\(server.httpBase)/cookies"], environment: persistentEnv(dir))
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let body = try String(contentsOfFile: dir + "/b/cookies", encoding: .utf8)
        #expect(body.contains("\"x\":\"1\"") && body.contains("\"sid\":\"abc\""), "\(body)")
        let cookieHeaders = server.stats.requests.filter { $0.path == "/cookies" }.map { $0.headers.filter { $0.name.lowercased() == "cookie" }.count }
        #expect(cookieHeaders == [1], "\(cookieHeaders)")
    }
}
