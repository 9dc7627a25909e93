import Foundation
import LoopbackServer
import TestSupport
import Testing

/// ftp, file and data: URLs from the command line: files placed byte-exact, rows in
/// CSV and HAR without a status code, and no password in any output.
@Suite(.serialized) struct SchemesCLITests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    private func randomBytes(_ n: Int) -> Data {
        var g = SystemRandomNumberGenerator()
        return Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    @Test func ftpFileAndDataURLsDownloadWithRowsInCSVAndHARAndNoSecret() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/root", withIntermediateDirectories: true)
        let server = try await FTPTestServer.start(root: dir + "/root", password: "pw-\(UUID().uuidString.prefix(8))")
        let ftpBody = randomBytes(1_500_000), fileBody = randomBytes(300_000)
        try ftpBody.write(to: URL(fileURLWithPath: dir + "/root/remote.bin"))
        try FileManager.default.createDirectory(atPath: dir + "/local", withIntermediateDirectories: true)
        try fileBody.write(to: URL(fileURLWithPath: dir + "/local/local.bin"))
        let r = try await Run.binary([
            "--no-tui", "-o", dir + "/out", "--csv", dir + "/m.csv", "--har", dir + "/m.har", "--trace",
            server.url("remote.bin").absoluteString,
            "file://\(dir)/local/local.bin",
            "data:text/plain;charset=utf-8;base64,aGVsbG8sIGRhdGE=",
        ])
        await server.stop()
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/out/remote.bin") == ftpBody)
        #expect(FileManager.default.contents(atPath: dir + "/out/local.bin") == fileBody)
        #expect(FileManager.default.contents(atPath: dir + "/out/data.txt") == Data("hello, data".utf8))

        let csv = try CSVRead.records(try String(contentsOfFile: dir + "/m.csv", encoding: .utf8))
        let header = try #require(csv.first)
        let (url, status, proto, bodyBytes) = (header.firstIndex(of: "url")!, header.firstIndex(of: "status")!,
                                               header.firstIndex(of: "protocol")!, header.firstIndex(of: "response_body_bytes")!)
        let rows = csv.dropFirst()
        #expect(rows.count == 3)
        #expect(Set(rows.map { $0[proto] }) == ["ftp", "file", "data"])
        #expect(rows.allSatisfy { $0[status].isEmpty }, "no status code: the column is empty")
        let ftpRow = try #require(rows.first { $0[proto] == "ftp" })
        #expect(ftpRow[bodyBytes] == "\(ftpBody.count)")
        #expect(ftpRow[url].contains("***:***@127.0.0.1"), "\(ftpRow[url])")
        #expect(ftpRow[header.firstIndex(of: "connect_ms")!] != "" && ftpRow[header.firstIndex(of: "ttfb_ms")!] != "")

        let har = try String(contentsOfFile: dir + "/m.har", encoding: .utf8)
        #expect(har.contains("\"status\": 0") && har.contains("no HTTP status (0) or header lines"))
        let python = try RequiredTool.python(importing: "jsonschema")
        let root = Self.repositoryRoot
        let valid = try await ToolRun.run(python, ["\(root)/scripts/har-validate.py", "\(root)/scripts/har-1.2.schema.json", dir + "/m.har"])
        #expect(valid.status == 0, "\(valid.output)")

        // The trace shows the FTP dialogue with the password masked; nothing anywhere holds it.
        #expect(r.stderr.contains("PASS [redacted]"), "\(r.stderr.suffix(2000))")
        for (name, text) in [("stdout", r.stdout), ("stderr", r.stderr), ("csv", try String(contentsOfFile: dir + "/m.csv", encoding: .utf8)),
                             ("har", har)] {
            #expect(!text.contains(server.password), "\(name) holds the password")
        }
    }

    /// ftps:// is implicit FTPS against a real server (pyftpdlib + pyOpenSSL): verified against
    /// --cacert like https (refused without it), TLS on the data connection too, and a CSV row
    /// with the TLS version and `tls_verified`. libcurl 7.88 loses the control connection's TCP
    /// end (CONNECT is stamped again by the data connection), so connect holds TCP + TLS and
    /// tls_ms is empty, never a made-up 0 (DECISIONS 95, MetricsTranslationTests).
    @Test func ftpsIsVerifiedLikeHTTPSAndRecordsItsTLS() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/root", withIntermediateDirectories: true)
        let body = randomBytes(300_000)
        try body.write(to: URL(fileURLWithPath: dir + "/root/secure.bin"))
        try LoopbackServer.writeIdentity(certificate: dir + "/ca.pem", key: dir + "/key.pem")
        let server = try await FTPTestServer.start(root: dir + "/root", password: "pw-\(UUID().uuidString.prefix(8))",
                                                   tls: (dir + "/ca.pem", dir + "/key.pem"))
        defer { Task { await server.stop() } }
        let url = server.url("secure.bin").absoluteString
        #expect(url.hasPrefix("ftps://"))

        let refused = try await Run.binary(["--no-tui", "-o", dir + "/no", url])
        #expect(refused.status != 0, "a self-signed FTPS server is refused by default: \(refused.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/no/secure.bin"))

        let r = try await Run.binary(["--no-tui", "--cacert", dir + "/ca.pem", "-o", dir + "/out", "--csv", dir + "/m.csv", url])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/out/secure.bin") == body)
        let csv = try CSVRead.records(try String(contentsOfFile: dir + "/m.csv", encoding: .utf8))
        let header = try #require(csv.first)
        let row = try #require(csv.dropFirst().first)
        func cell(_ name: String) -> String { row[header.firstIndex(of: name)!] }
        #expect(cell("protocol") == "ftps")
        #expect(cell("tls_version").hasPrefix("TLSv1."), "\(row)")
        #expect(cell("tls_verified") == "true")
        #expect(cell("connect_ms") != "" && cell("ttfb_ms") != "")
        #expect(cell("tls_ms") == "", "the TLS part of an FTPS connect is not known in 7.88: empty, not 0")
        for text in [r.stdout, r.stderr, try String(contentsOfFile: dir + "/m.csv", encoding: .utf8)] {
            #expect(!text.contains(server.password))
        }
    }

    @Test func aRefusedLoginFailsTheRunCleanlyAndTheUserOptionLogsIn() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/root", withIntermediateDirectories: true)
        let server = try await FTPTestServer.start(root: dir + "/root")
        try Data("ok".utf8).write(to: URL(fileURLWithPath: dir + "/root/a.txt"))
        let wrong = "wrong-\(UUID().uuidString.prefix(6))"
        let refused = try await Run.binary(["--no-tui", "-o", dir + "/out", "--csv", dir + "/bad.csv",
                                            server.url("a.txt", password: wrong).absoluteString])
        let accepted = try await Run.binary(["--no-tui", "-o", dir + "/out2", "-u", "\(server.user):\(server.password)",
                                             server.url("a.txt", credentials: false).absoluteString])
        await server.stop()
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.contains("authentication is required (or the login was refused)"), "\(refused.stdout)")
        let csv = try String(contentsOfFile: dir + "/bad.csv", encoding: .utf8)
        for text in [refused.stdout, refused.stderr, csv] { #expect(!text.contains(wrong)) }
        #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/out2/a.txt") == Data("ok".utf8))
        #expect(!accepted.stdout.contains(server.password) && !accepted.stderr.contains(server.password))
    }

    @Test func aMissingFileAndADirectoryFailWithTheirReason() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await Run.binary(["--no-tui", "-o", dir + "/out", "file://\(dir)/missing.bin", "file://\(dir)"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("error: the file \(dir)/missing.bin does not exist"), "\(r.stdout)")
        #expect(r.stdout.contains("error: \(dir) is a directory, not a file"), "\(r.stdout)")
    }

    /// Ctrl-C midway through an ftp download keeps resume data (stored without the password);
    /// the same command again continues with REST and the file is byte-exact. The server holds
    /// a `held-` file after its first MiB, so the interrupt surely lands midway (with an hour of
    /// idle time for the held transfer, DECISIONS 167).
    @Test func interruptedFTPDownloadResumesOnTheNextRun() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/root", withIntermediateDirectories: true)
        let server = try await FTPTestServer.start(root: dir + "/root", password: "pw-\(UUID().uuidString.prefix(8))")
        let body = randomBytes(4 * 1024 * 1024)
        try body.write(to: URL(fileURLWithPath: dir + "/root/held-big.bin"))
        let env = ["XDG_STATE_HOME": dir + "/state"]
        let args = ["-o", dir + "/out", "--request-timeout", "3600", server.url("held-big.bin").absoluteString]
        let first = try Run.spawn(args, environment: env)
        try await waitFor("the first body bytes on disk") { largestFile(under: dir + "/out") > 100_000 }
        first.signal(SIGINT)
        let r1 = await first.wait()
        #expect(r1.status == 1, "\(r1.stdout)\(r1.stderr)")
        #expect(r1.stdout.contains("interrupted: 1 download(s) kept resume data"), "\(r1.stdout)")
        let resumeDir = dir + "/state/transfertop/resume"
        let saved = (try? FileManager.default.contentsOfDirectory(atPath: resumeDir)) ?? []
        #expect(saved.count == 1)
        for name in saved {
            let stored = try Data(contentsOf: URL(fileURLWithPath: resumeDir + "/" + name))
            #expect(!String(decoding: stored, as: UTF8.self).contains(server.password), "stored resume data holds the password")
        }
        let r2 = try await Run.binary(args, environment: env)
        await server.stop()
        #expect(r2.status == 0, "\(r2.stdout)\(r2.stderr)")
        #expect(r2.stdout.contains("resuming"), "\(r2.stdout)")
        #expect(FileManager.default.contents(atPath: dir + "/out/held-big.bin") == body)
        for text in [r1.stdout, r1.stderr, r2.stdout, r2.stderr] { #expect(!text.contains(server.password)) }
    }
}
