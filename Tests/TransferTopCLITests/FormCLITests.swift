import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI
import TransferKit
@testable import TransferTopRun

/// In the CLI: `-F/--form` as curl's, checked by the loopback server's streaming
/// multipart parser (`/form`), and bad fields as usage errors before any request.
@Suite struct FormCLITests {
    struct Report: Decodable {
        struct Part: Decodable, Equatable {
            var name: String
            var filename: String?
            var contentType: String?
            var size: Int64
            var sha256: String
        }
        var bodyLength: Int64
        var parts: [Part]?
        var error: String?
    }

    static let parsed: [(String, FormField)] = [
        ("a=b", .value(name: "a", "b")),
        ("a=", .value(name: "a", "")),
        ("a=b=c;type=x", .value(name: "a", "b=c;type=x")),
        ("f=@/tmp/x.png", .file(name: "f", path: "/tmp/x.png", type: nil, filename: nil)),
        ("f=@/tmp/x;type=text/plain;filename=y.txt", .file(name: "f", path: "/tmp/x", type: "text/plain", filename: "y.txt")),
        ("f=@\"/tmp/a;b\";type=t", .file(name: "f", path: "/tmp/a;b", type: "t", filename: nil)),
        ("c=</tmp/v.txt", .contents(name: "c", path: "/tmp/v.txt", type: nil)),
    ]

    @Test(arguments: parsed) func fieldsParseAsCurlWrites(_ text: String, _ field: FormField) throws {
        #expect(try FormField.parse(text) == field)
    }

    @Test(arguments: ["novalue", "=x", "f=@", "f=@/x;bogus=1", "f=@\"/x", "c=</x;filename=y", "f=@/x;type"])
    func badFieldsAreUsageErrors(_ text: String) {
        #expect(throws: UsageError.self) { try FormField.parse(text) }
    }

    @Test func aFormReachesTheServerWholeAndTheFileIsStreamed() async throws {
        // A loop of its own: parsing 256 MiB of form takes minutes under the thread sanitizer.
        let server = try await LoopbackServer.start(threads: 1)
        defer { Task { try? await server.shutdown() } }
        let root = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // 256 MiB, sparse: a client that read it into memory would show it in its peak RSS
        // (the bound leaves room for a sanitizer build's own memory, as LineModeTests' upload).
        let big = root + "/big.bin"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: 256 << 20)
        try handle.close()
        try Data("value from a file".utf8).write(to: URL(fileURLWithPath: root + "/v.txt"))
        let env = ["XDG_STATE_HOME": root + "/state", "XDG_CONFIG_HOME": root + "/config"]
        let (r, peak) = try await Run.binaryMeasuringMemory(
            ["--no-tui", "-o", root + "/out", "-F", "title=a report", "-F", "data=@\(big);type=application/x-big",
             "-F", "note=<\(root)/v.txt", "\(server.httpBase)/form?hash=0"], environment: env)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let record = try #require(server.stats.requests.last { $0.path.hasPrefix("/form") })
        #expect(record.method == "POST")
        #expect(record.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        let report = try JSONDecoder().decode(Report.self, from: Data(try #require(record.formReport).utf8))
        #expect(report.error == nil)
        #expect(report.parts?.map(\.name) == ["title", "data", "note"])
        #expect(report.parts?.map(\.size) == [8, 256 << 20, 17])
        #expect(report.parts?.map(\.filename) == [nil, "big.bin", nil])
        #expect(report.parts?.map(\.contentType) == [nil, "application/x-big", nil])
        #expect(peak > 0 && peak < 128 << 20, "peak RSS \(peak >> 20) MiB for a 256 MiB form file")
    }

    @Test func anUnreadableFormFileOrFormWithUploadIsAUsageError() async throws {
        let root = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let env = ["XDG_STATE_HOME": root + "/state", "XDG_CONFIG_HOME": root + "/config"]
        let missing = try await Run.binary(["--no-tui", "-F", "f=@\(root)/nope", "http://127.0.0.1:1/x"], environment: env)
        #expect(missing.status == 2 && missing.stderr.contains("cannot read upload file"), "\(missing.stderr)")
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/x"))
        let both = try await Run.binary(["--no-tui", "-F", "a=b", "--upload", root + "/x", "http://127.0.0.1:1/x"], environment: env)
        #expect(both.status == 2 && both.stderr.contains("cannot be combined"), "\(both.stderr)")
    }

    /// `-T -`: standard input is sent as it is read, chunked, to the one URL.
    @Test func uploadFromStandardInput() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let root = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data(LoopbackServer.body(size: 250_000, seed: 4)).write(to: URL(fileURLWithPath: root + "/in"))
        let r = try await Run.binary(["-T", "-", "\(server.httpBase)/echo?stdin"], standardInput: root + "/in")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let record = try #require(server.stats.requests.last { $0.path.hasPrefix("/echo?stdin") })
        #expect(record.method == "PUT" && record.bodyBytesReceived == 250_000)
        #expect(record.header("Transfer-Encoding") == "chunked")

        let two = try await Run.binary(["-T", "-", "\(server.httpBase)/echo", "\(server.httpBase)/echo"])
        #expect(two.status == 2 && two.stderr.contains("exactly one URL"), "\(two.stderr)")
    }
}
