import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferTopCLI
import TransferModel

/// docs/csv.md is the CSV export's contract: its table names every column in order, and a real
/// export, read back by CSV.swift, has in every cell what the table says.
@Suite struct CSVColumnsTests {
    struct Column {
        var name: String, meaning: String, format: String, emptyWhen: String
    }

    static let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/csv.md")

    /// The rows of the first table in docs/csv.md whose header starts with `| column |`.
    static func documentedColumns() throws -> [Column] {
        let lines = try String(contentsOf: doc, encoding: .utf8).components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("| column |") }) else { return [] }
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            return Column(name: cells[0], meaning: cells[1], format: cells[2], emptyWhen: cells[3])
        }
    }

    @Test func documentedColumnsAreTheWrittenColumns() throws {
        #expect(try Self.documentedColumns().map(\.name) == TransactionCSV.header)
    }

    /// What a non-empty cell must look like, from the table's "unit / format" and "meaning".
    static func problem(_ value: String, _ c: Column) -> String? {
        func matches(_ pattern: String) -> Bool { value.range(of: "^" + pattern + "$", options: .regularExpression) != nil }
        let format = c.format
        if format.hasPrefix("ms") { return matches(#"\d+\.\d{3}"#) ? nil : "not milliseconds with 3 decimals" }
        if format == "bytes" || format == "integer" { return matches(#"\d+"#) ? nil : "not a whole number" }
        if format == "`true`/`false`" { return ["true", "false"].contains(value) ? nil : "not true/false" }
        if format.hasPrefix("ISO 8601") { return matches(#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#) ? nil : "not ISO 8601 UTC with ms" }
        // A text column whose meaning lists its values (`a`, `b` or `c`) takes only those.
        let listed = c.meaning.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        if format == "text", listed.count >= 2, !c.meaning.contains("e.g.") {
            return listed.contains(value) ? nil : "not one of \(listed)"
        }
        return nil
    }

    @Test func aRealExportReadsBackAsDocumented() async throws {
        let columns = try Self.documentedColumns()
        let server = try await LoopbackServer.start()
        defer { Task { try? await server.shutdown() } }
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ca = dir + "/ca.pem"
        try server.writeCACertificate(to: ca)
        let csv = dir + "/m.csv"
        let r = try await Run.binary(["--no-tui", "-o", dir + "/out", "--csv", csv, "--cacert", ca,
                                      "\(server.httpBase)/redirect/2", "\(server.httpsBase)/bytes/2000?seed=1",
                                      "\(server.httpBase)/status/404", "http://127.0.0.1:1/refused",
                                      server.httpBase.replacingOccurrences(of: "http://", with: "https://") + "/tls-to-plain"],
                                     environment: ["XDG_STATE_HOME": dir + "/state"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let records = try CSVRead.records(String(contentsOfFile: csv, encoding: .utf8))
        #expect(records.first == TransactionCSV.header)
        let rows: [[String: String]] = records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(TransactionCSV.header, $0)) }
        let expectedRows = 7  // 3 hops, https, 404, refused, TLS to the plain port
        #expect(rows.count == expectedRows)
        for (i, row) in rows.enumerated() {
            let hasHop = !(row["hop"] ?? "").isEmpty
            for c in columns {
                let value = row[c.name] ?? ""
                if value.isEmpty {
                    #expect(!(c.emptyWhen.hasPrefix("never") && hasHop), "row \(i + 1) \(c.name) is empty")
                } else if let problem = Self.problem(value, c) {
                    Issue.record("row \(i + 1) \(c.name) = \(value): \(problem)")
                }
            }
        }
        // The facts behind the columns: hops count up per task, TLS only where there was TLS.
        func cell(_ row: [String: String], _ name: String) -> String { row[name] ?? "" }
        let redirect = rows.filter { cell($0, "url").contains("/redirect/") || cell($0, "url").hasSuffix("/get") }
        #expect(redirect.map { cell($0, "hop") } == ["1", "2", "3"])
        let https = try #require(rows.first { cell($0, "url").hasPrefix("https://") })
        let tlsVersion = cell(https, "tls_version"), tlsMs = cell(https, "tls_ms")
        #expect(tlsVersion.hasPrefix("TLS") && !tlsMs.isEmpty)
        let plain = rows.filter { cell($0, "url").hasPrefix("http://") }
        #expect(plain.allSatisfy { cell($0, "tls_ms").isEmpty })
        #expect(rows.contains { cell($0, "status") == "404" })
        let refused = try #require(rows.first { cell($0, "url").hasSuffix("/refused") })
        let refusedError = cell(refused, "error"), refusedStatus = cell(refused, "status")
        #expect(!refusedError.isEmpty && refusedStatus.isEmpty)
        // The phase that failed is named, with its time, as the monitor shows it.
        #expect(cell(refused, "failed_phase") == "connect" && !cell(refused, "connect_ms").isEmpty)
        let handshake = try #require(rows.first { cell($0, "url").hasSuffix("/tls-to-plain") })
        #expect(cell(handshake, "failed_phase") == "tls" && !cell(handshake, "tls_ms").isEmpty, "\(handshake)")
        #expect(rows.filter { !cell($0, "failed_phase").isEmpty }.count == 2)
    }
}
