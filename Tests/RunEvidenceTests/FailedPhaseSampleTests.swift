import Foundation
import Testing
import RunEvidence
import TransferModel

/// The time a failed phase took until the hop ended (exported since the failed phase is named)
/// is not a sample of that phase: a failed handshake's 5 s would read as a slow TLS.
@Suite struct FailedPhaseSampleTests {
    @Test func anExportsFailedPhaseIsNoSample() throws {
        let tail = ",session_id,task_state,resume_offset_bytes,tls_verified,fetch_type,failed_phase"
        let header = "session,task_id,task_kind,hop,method,url,status,protocol,remote_address,remote_port,local_port,reused,tls_version,cipher,fetch_start,queued_ms,dns_ms,connect_ms,tls_ms,request_ms,wait_ms,receive_ms,ttfb_ms,total_ms,request_header_bytes,request_body_bytes,response_header_bytes,response_body_bytes,error" + tail
        let text = header + "\r\n"
            + "s,1,download,1,GET,https://a.example/x,,,,,,false,,,,,0.100,,5000.000,,,,,5000.100,0,0,0,0,TLS handshake failed,1,completed,,,network,tls\r\n"
        let s = try CSVRun.samples(text, name: "a.csv")
        #expect(s.count == 1 && s[0].failed)
        #expect(s[0].milliseconds[.tls] == nil && s[0].milliseconds[.dns] == 0.1 && s[0].milliseconds[.total] == 5000.1)
    }

    @Test func aLiveTasksFailedPhaseIsNoSample() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let hop = TransactionMetrics(method: "GET", url: "https://a.example/x", fetchStartDate: start,
                                     domainLookupStartDate: start, domainLookupEndDate: start.addingTimeInterval(0.001),
                                     connectStartDate: start.addingTimeInterval(0.001),
                                     secureConnectionStartDate: start.addingTimeInterval(0.001),
                                     currentPhase: .done, errorDescription: "TLS handshake failed")
        let task = TaskSnapshot(sessionID: 1, sessionName: "s", taskIdentifier: 1, kind: .download, state: .completed,
                                originalURL: "https://a.example/x",
                                metrics: TaskMetrics(taskIntervalStart: start, taskIntervalEnd: start.addingTimeInterval(5),
                                                     redirectCount: 0, transactionMetrics: [hop]),
                                error: TransferError(.secureConnectionFailed, "TLS handshake failed"))
        let s = HopSample.samples(task)
        #expect(s.count == 1 && s[0].failed && s[0].milliseconds[.tls] == nil && s[0].milliseconds[.dns] != nil)
    }
}
