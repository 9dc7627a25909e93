import Foundation
import TestSupport
import Testing
@testable import TransferModel

@Suite struct HARTests {
    static func sampleTasks() -> [TaskSnapshot] {
        var failed = TransactionMetrics(method: "GET", url: "https://x.test/?sig=abc")
        failed.apply(MetricsTranslation.phaseDates(translationCases[4].facts))
        return [
            snapshot(task: 1, kind: .download, transactions: [fullTransaction(url: "https://u:p@h.test/a?token=T0K&q=1"), reusedTransaction()],
                     resumeOffset: 400),
            snapshot(task: 2, transactions: [failed], error: TransferError(.secureConnectionFailed, "TLS handshake failed"),
                     end: 5_000_000),
        ]
    }

    static func entries(_ tasks: [TaskSnapshot]) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(HARExport.harText(tasks).utf8)) as! [String: Any]
        let log = json["log"] as! [String: Any]
        #expect(log["version"] as? String == "1.2")
        return log["entries"] as! [[String: Any]]
    }

    @Test func timingsUseMinusOneForAbsentAndConnectIncludesSSL() throws {
        let e = try Self.entries(Self.sampleTasks())
        #expect(e.count == 3)
        let t0 = e[0]["timings"] as! [String: Double]
        #expect(t0 == ["blocked": 1, "dns": 1, "connect": 8, "ssl": 7, "send": 0.5, "wait": 10, "receive": 10])
        #expect(e[0]["time"] as? Double == 30.5)  // 1+1+8+0.5+10+10, ssl not added again
        let t1 = e[1]["timings"] as! [String: Double]
        #expect(t1["dns"] == -1 && t1["connect"] == -1 && t1["ssl"] == -1 && t1["blocked"] == 0)
        let t2 = e[2]["timings"] as! [String: Double]
        #expect(t2["connect"] == -1 && t2["ssl"] == -1 && t2["blocked"] == -1 && t2["send"] == 0)
    }

    @Test func entryFieldsAndCustomFields() throws {
        let e = try Self.entries(Self.sampleTasks())
        #expect(e[0]["startedDateTime"] as? String == "2023-11-14T22:13:20.000Z")
        #expect(e[0]["serverIPAddress"] as? String == "127.0.0.1")
        #expect(e[0]["connection"] as? String == "50123")
        #expect(e[0]["_taskId"] as? Int == 1 && e[0]["_session"] as? String == "default")
        #expect(e[0]["_taskState"] as? String == "completed" && e[0]["_resumeOffset"] as? Int == 400)
        #expect(e[0]["_tlsVersion"] as? String == "TLSv1.3" && e[0]["_cipher"] as? String == "TLS_AES_256_GCM_SHA384")
        #expect(e[2]["_error"] as? String == "secureConnectionFailed: TLS handshake failed")
        let req = e[0]["request"] as! [String: Any]
        #expect(req["url"] as? String == "https://***:***@h.test/a?token=REDACTED&q=1")
        #expect(req["httpVersion"] as? String == "HTTP/1.1")
        let query = req["queryString"] as! [[String: String]]
        #expect(query == [["name": "token", "value": "REDACTED"], ["name": "q", "value": "1"]])
        let resp1 = e[1]["response"] as! [String: Any]
        #expect(resp1["httpVersion"] as? String == "HTTP/2" && resp1["comment"] != nil)
        let resp2 = e[2]["response"] as! [String: Any]
        #expect(resp2["status"] as? Int == 0 && resp2["bodySize"] as? Int == -1)
    }

    @Test func secretsNeverAppear() {
        let text = HARExport.harText(Self.sampleTasks())
        for secret in ["SECRET-TOKEN-1", "SECRET-COOKIE-2", "T0K", "\"abc\"", ":p@"] {
            #expect(!text.contains(secret), "\(secret)")
        }
        #expect(text.contains("\"Bearer REDACTED\""))
    }

    @Test func outputIsDeterministic() {
        #expect(HARExport.harText(Self.sampleTasks()) == HARExport.harText(Self.sampleTasks().reversed()))
    }

    @Test func jsonStringsAreEscaped() {
        #expect(JSONValue.string("a\"b\\c\n\u{1}é").serialized() == "\"a\\\"b\\\\c\\n\\u0001é\"")
        #expect(JSONValue.number(-1).serialized() == "-1" && JSONValue.number(0.5).serialized() == "0.500")
    }

    /// The schema check needs python3 with jsonschema; scripts/setup installs it, so a machine
    /// without it fails here instead of skipping.
    func validate(_ text: String) async throws -> (status: Int32, output: String) {
        let file = try ExternalTool.temporaryFile("export.har", text)
        let root = ExternalTool.repositoryRoot
        let python = try RequiredTool.python(importing: "jsonschema")
        return try await ToolRun.run(python,
                                    ["\(root)/scripts/har-validate.py", "\(root)/scripts/har-1.2.schema.json", file])
    }

    @Test func validatesAgainstTheHAR12Schema() async throws {
        let result = try await validate(HARExport.harText(Self.sampleTasks()))
        #expect(result.status == 0, "\(result.output)")
        let empty = try await validate(HARExport.harText([]))
        #expect(empty.status == 0, "\(empty.output)")
    }

    @Test(arguments: [
            ("\"send\"", "\"sent\""),            // a required timing missing, unknown field
            ("\"time\": 30.5", "\"time\": 31"),   // time is not the sum of the timings
            ("\"status\": 200", "\"status\": \"200\""),
            ("\"dns\": 1", "\"dns\": -2"),
            ("\"cache\": {}", "\"cache\": 1"),
          ])
    func rejectsInvalidHAR(_ from: String, _ to: String) async throws {
        let good = HARExport.harText(Self.sampleTasks())
        #expect(good.contains(from))
        let bad = good.replacingOccurrences(of: from, with: to)
        let result = try await validate(bad)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("har-validate:"))
    }
}
