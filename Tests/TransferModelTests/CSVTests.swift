import Foundation
import TestSupport
import Testing
@testable import TransferModel

@Suite struct CSVEncodingTests {
    @Test(arguments: [
        ("plain", "plain"), ("", ""), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("line\nbreak", "\"line\nbreak\""), ("crlf\r\nx", "\"crlf\r\nx\""), ("cr\rx", "\"cr\rx\""),
        ("  spaces  ", "  spaces  "), ("ünï,cødé", "\"ünï,cødé\""),
    ])
    func quotesOnlyWhenNeeded(_ raw: String, _ encoded: String) {
        #expect(CSVEncoding.field(raw) == encoded)
    }

    @Test(arguments: [
        ("=1+2", "'=1+2"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"),
        ("\rx", "'\rx"), ("a=b", "a=b"), ("", ""), ("https://h/", "https://h/"),
    ])
    func guardsFormulas(_ raw: String, _ guarded: String) {
        #expect(CSVEncoding.guardFormula(raw) == guarded)
    }

    @Test func recordsEndWithCRLF() {
        #expect(CSVEncoding.record(["a", "b,c", ""]) == "a,\"b,c\",\r\n")
    }
}

/// Our writer, read back by CSV.swift.
@Suite struct CSVRoundTripTests {
    @Test func quotedFieldsAndLineBreaksSurvive() throws {
        let rows = [["a", "b,\"c\"", "x\r\ny"], ["1", "2", "3"], ["4", "", ""]]
        #expect(try CSVRead.records(rows.map(CSVEncoding.record).joined()) == rows)
    }

    /// Property: any fields survive encode → read unchanged.
    @Test func roundTripsRandomFields() throws {
        var rng = SeededRNG(seed: 7)
        let alphabet = Array("ab ,\"\r\n\t=é😀")
        for _ in 0..<500 {
            let width = Int.random(in: 1...5, using: &rng)
            let rows = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                (0..<width).map { _ in String((0..<Int.random(in: 0...6, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }) }
            }
            let text = rows.map(CSVEncoding.record).joined()
            // A lone empty field in a one-column row encodes as an empty line; skip that case.
            if width == 1, rows.contains(where: { $0 == [""] }) { continue }
            #expect(try CSVRead.records(text) == rows)
        }
    }
}

@Suite struct TransactionCSVTests {
    static let fixedHeader = "session,task_id,task_kind,hop,method,url,status,protocol,remote_address,remote_port,local_port,reused,tls_version,cipher,fetch_start,queued_ms,dns_ms,connect_ms,tls_ms,request_ms,wait_ms,receive_ms,ttfb_ms,total_ms,request_header_bytes,request_body_bytes,response_header_bytes,response_body_bytes,error"

    @Test func headerStartsWithTheFixedColumns() {
        let csv = TransactionCSV.csv([])
        #expect(csv.hasPrefix(Self.fixedHeader + ","))
        #expect(csv.hasSuffix("\r\n"))
        #expect(csv.components(separatedBy: "\r\n").count == 2)  // header only
    }

    @Test func oneRowPerTransactionWithDurations() throws {
        let task = snapshot(task: 3, transactions: [fullTransaction(), reusedTransaction()])
        let rows = try CSVRead.records(TransactionCSV.csv([task]))
        #expect(rows.count == 3)
        let h = rows[0]
        func cell(_ r: Int, _ name: String) -> String { rows[r][h.firstIndex(of: name)!] }
        #expect(cell(1, "hop") == "1" && cell(2, "hop") == "2")
        #expect(cell(1, "fetch_start") == "2023-11-14T22:13:20.000Z")
        #expect(cell(2, "fetch_start") == "2023-11-14T22:13:20.040Z")
        #expect(cell(1, "queued_ms") == "1.000" && cell(1, "dns_ms") == "1.000")
        #expect(cell(1, "connect_ms") == "1.000" && cell(1, "tls_ms") == "7.000")
        #expect(cell(1, "request_ms") == "0.500" && cell(1, "wait_ms") == "10.000")
        #expect(cell(1, "receive_ms") == "10.000" && cell(1, "ttfb_ms") == "20.000" && cell(1, "total_ms") == "31.000")
        #expect(cell(1, "protocol") == "http/1.1" && cell(2, "protocol") == "h2")
        #expect(cell(1, "reused") == "false" && cell(2, "reused") == "true")
        #expect(cell(1, "tls_version") == "TLSv1.3" && cell(1, "cipher") == "TLS_AES_256_GCM_SHA384")
        #expect(cell(1, "remote_address") == "127.0.0.1" && cell(1, "remote_port") == "8443" && cell(1, "local_port") == "50123")
        #expect(cell(1, "request_header_bytes") == "120" && cell(1, "response_body_bytes") == "1000")
        #expect(cell(1, "status") == "200" && cell(2, "status") == "204")
        #expect(cell(1, "task_kind") == "data" && cell(1, "session") == "default" && cell(1, "task_id") == "3")
    }

    @Test func absentPhasesAreEmptyCells() throws {
        let rows = try CSVRead.records(TransactionCSV.csv([snapshot(task: 1, transactions: [reusedTransaction()])]))
        let h = rows[0]
        for name in ["dns_ms", "connect_ms", "tls_ms", "tls_version", "cipher"] {
            #expect(rows[1][h.firstIndex(of: name)!] == "", "\(name)")
        }
        #expect(rows[1][h.firstIndex(of: "queued_ms")!] == "0.000")
    }

    @Test func orderIsSessionThenTaskThenHop() throws {
        let tasks = [
            snapshot(session: 2, name: "b", task: 1, transactions: [fullTransaction()]),
            snapshot(session: 1, name: "a", task: 10, transactions: [fullTransaction(), reusedTransaction()]),
            snapshot(session: 1, name: "a", task: 2, transactions: [fullTransaction()]),
        ]
        let rows = try CSVRead.records(TransactionCSV.csv(tasks)).dropFirst()
        #expect(rows.map { "\($0[0])/\($0[1])/\($0[3])" } == ["a/2/1", "a/10/1", "a/10/2", "b/1/1"])
        #expect(TransactionCSV.csv(tasks) == TransactionCSV.csv(tasks.reversed()))
    }

    @Test func awkwardTextIsQuotedGuardedAndRoundTrips() throws {
        var m = fullTransaction(url: "https://bob:hunter2@exämple.test/a,b/\"q\"?token=SECRET3&name=ü")
        m.method = "=cmd|' /C calc'!A0"
        let error = TransferError(.timedOut, "line one,\nline \"two\"", curlCode: 28, curlMessage: "Timeout")
        let task = snapshot(name: "-sess, \"x\"", task: 1, transactions: [m], error: error)
        let text = TransactionCSV.csv([task])
        let rows = try CSVRead.records(text)
        let h = rows[0]
        func cell(_ name: String) -> String { rows[1][h.firstIndex(of: name)!] }
        #expect(cell("url") == "https://***:***@exämple.test/a,b/\"q\"?token=REDACTED&name=ü")
        #expect(cell("method") == "'=cmd|' /C calc'!A0")
        #expect(cell("session") == "'-sess, \"x\"")
        #expect(cell("error") == "timedOut: line one,\nline \"two\" [curl 28: Timeout]")
        for secret in ["hunter2", "SECRET3", "SECRET-TOKEN-1", "SECRET-COOKIE-2"] { #expect(!text.contains(secret)) }
    }

    @Test func failedTaskWithoutTransactionsStillHasARow() throws {
        let error = TransferError(.badURL, "The URL https://u:pw@x/?key=k is malformed", curlCode: 3)
        let task = snapshot(task: 9, state: .completed, url: "https://u:pw@x/?key=k", transactions: [], error: error)
        let rows = try CSVRead.records(TransactionCSV.csv([task]))
        #expect(rows.count == 2)
        let h = rows[0]
        #expect(rows[1][h.firstIndex(of: "hop")!] == "")
        #expect(rows[1][h.firstIndex(of: "url")!] == "https://***:***@x/?key=REDACTED")
        #expect(rows[1][h.firstIndex(of: "error")!] == "badURL: The URL https://***:***@x/?key=REDACTED is malformed [curl 3]")
        #expect(rows[1][h.firstIndex(of: "task_state")!] == "completed")
    }

    @Test func failedLastHopCarriesTheTaskErrorAndItsTotal() throws {
        var m = TransactionMetrics(method: "GET", url: "https://x.test/")
        m.apply(MetricsTranslation.phaseDates(translationCases[4].facts))  // failed TLS
        let task = snapshot(task: 1, transactions: [m], error: TransferError(.secureConnectionFailed, "TLS handshake failed"),
                            end: 5_000_000)
        let rows = try CSVRead.records(TransactionCSV.csv([task]))
        let h = rows[0]
        func cell(_ name: String) -> String { rows[1][h.firstIndex(of: name)!] }
        #expect(cell("error") == "secureConnectionFailed: TLS handshake failed")
        #expect(cell("dns_ms") == "0.024" && cell("tls_ms") == "" && cell("connect_ms") == "" && cell("total_ms") == "5000.000")
        #expect(cell("status") == "" && cell("queued_ms") == "")
    }

    @Test func pythonCSVModuleReadsItBack() async throws {
        let python = try RequiredTool.program("python3")
        let task = snapshot(task: 1, transactions: [fullTransaction(url: "https://h/ä,\"b\"\n")])
        let file = try ExternalTool.temporaryFile("export.csv", TransactionCSV.csv([task]))
        let script = "import csv,sys; r=list(csv.reader(open(sys.argv[1],newline='',encoding='utf-8'))); "
            + "assert len(r)==2 and len(set(map(len,r)))==1, r; assert r[1][5]=='https://h/ä,\"b\"\\n', r[1][5]"
        let result = try await ToolRun.run(python, ["-c", script, file])
        #expect(result.status == 0, "\(result.output)")
    }
}
