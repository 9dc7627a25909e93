import Testing
@testable import TransferKit
import TransferModel

/// The task brain as event/action scripts, one line per step.
@Suite struct TaskStateMachineTests {
    typealias M = TaskStateMachine

    private func run(_ m: inout M, _ script: [(M.Event, M.Action, TaskState)]) {
        for (i, (event, action, state)) in script.enumerated() {
            #expect(m.handle(event) == action, "step \(i): \(event)")
            #expect(m.state == state, "step \(i): state after \(event)")
        }
    }

    @Test func resumeSuspendResumeFinish() {
        var m = M()
        #expect(m.state == .suspended)
        run(&m, [
            (.resume, .startTransfer, .running),
            (.resume, .ignore("task is already running"), .running),
            (.suspend, .pauseTransfer, .suspended),
            (.suspend, .ignore("task is already suspended"), .suspended),
            (.resume, .unpauseTransfer, .running),
            (.finished(nil), .complete(nil), .completed),
        ])
    }

    @Test func cancelWhileRunningGoesThroughCanceling() {
        var m = M()
        let cancelled = TransferError.cancelled()
        run(&m, [
            (.resume, .startTransfer, .running),
            (.cancel(byProducingResumeData: false), .cancelTransfer(byProducingResumeData: false), .canceling),
            (.resume, .ignore("task is being cancelled"), .canceling),
            (.suspend, .ignore("task is being cancelled"), .canceling),
            (.cancel(byProducingResumeData: true), .ignore("task is being cancelled"), .canceling),
            (.finished(cancelled), .complete(cancelled), .completed),
        ])
    }

    @Test func cancelBeforeResumeAndWithResumeData() {
        var m = M()
        run(&m, [
            (.cancel(byProducingResumeData: true), .cancelTransfer(byProducingResumeData: true), .canceling),
            (.finished(nil), .complete(.cancelled()), .completed),
        ])
    }

    @Test func completedIgnoresEverything() {
        var m = M()
        let timedOut = TransferError(.timedOut, "t")
        run(&m, [
            (.resume, .startTransfer, .running),
            (.finished(timedOut), .complete(timedOut), .completed),
            (.resume, .ignore("task is completed"), .completed),
            (.suspend, .ignore("task is completed"), .completed),
            (.cancel(byProducingResumeData: false), .ignore("task is completed"), .completed),
            (.finished(nil), .ignore("task is completed"), .completed),
        ])
    }

    @Test func adoptionAndHandOver() {
        var download = M()
        run(&download, [
            (.adoptRunningTransfer, .none, .running),
            (.adoptRunningTransfer, .ignore("only a new task can adopt a transfer"), .running),
            (.finished(nil), .complete(nil), .completed),
        ])
        var data = M()
        run(&data, [
            (.resume, .startTransfer, .running),
            (.handedOver, .none, .completed),
            (.handedOver, .ignore("task is completed"), .completed),
        ])
    }

    @Test func suspendedTaskCanFinish() {
        var m = M()
        run(&m, [
            (.resume, .startTransfer, .running),
            (.suspend, .pauseTransfer, .suspended),
            (.finished(.cancelled()), .complete(.cancelled()), .completed),
        ])
    }
}

@Suite struct RedirectPolicyTests {
    let base = RedirectPolicy.Request(method: "POST", url: URL(string: "http://a.test/x")!,
                                      headers: [HTTPHeader("Authorization", "Basic eA=="), HTTPHeader("Content-Type", "text/plain")],
                                      hasBody: true)

    private func follow(_ status: Int, _ location: String, from r: RedirectPolicy.Request? = nil) -> RedirectPolicy.Request? {
        if case .follow(let n) = RedirectPolicy.evaluate(r ?? base, status: status, location: location) { return n }
        return nil
    }

    @Test func methodRules() {
        #expect(follow(301, "/y")?.method == "GET")
        #expect(follow(302, "/y")?.method == "GET")
        #expect(follow(303, "/y")?.method == "GET")
        #expect(follow(307, "/y")?.method == "POST")
        #expect(follow(308, "/y")?.hasBody == true)
        #expect(follow(303, "/y")?.hasBody == false)
        #expect(follow(303, "/y")?.headers.first(named: "Content-Type") == nil)
        var put = base
        put.method = "PUT"
        #expect(follow(302, "/y", from: put)?.method == "PUT")
        #expect(follow(303, "/y", from: put)?.method == "GET")
    }

    @Test func authorizationDroppedAcrossOrigins() {
        #expect(follow(307, "/y")?.headers.first(named: "Authorization") != nil)
        #expect(follow(307, "http://b.test/y")?.headers.first(named: "Authorization") == nil)
        #expect(follow(307, "http://a.test:8080/y")?.headers.first(named: "Authorization") == nil)
        #expect(follow(307, "https://a.test/y")?.headers.first(named: "Authorization") == nil)
    }

    @Test func relativeAndDowngrade() {
        #expect(follow(302, "../z?q=1")?.url.absoluteString == "http://a.test/z?q=1")
        var tls = base
        tls.url = URL(string: "https://a.test/x")!
        #expect(follow(302, "http://a.test/plain", from: tls)?.url.scheme == "http")  // followed, as URLSession does
    }

    @Test func notFollowable() {
        #expect(RedirectPolicy.evaluate(base, status: 200, location: "/y") == .final)
        #expect(RedirectPolicy.evaluate(base, status: 302, location: nil) == .final)
        #expect(RedirectPolicy.evaluate(base, status: 304, location: "/y") == .final)
        #expect(RedirectPolicy.evaluate(base, status: 302, location: "ftp://a.test/f") == .refusedScheme("ftp"))
        #expect(RedirectPolicy.evaluate(base, status: 301, location: "file:///etc/passwd") == .refusedScheme("file"))
        #expect(RedirectPolicy.evaluate(base, status: 307, location: "data:,hi") == .refusedScheme("data"))
        #expect(RedirectPolicy.evaluate(base, status: 302, location: "FTPS://a.test/f") == .refusedScheme("ftps"))
        #expect(RedirectPolicy.evaluate(base, status: 302, location: "http:///nohost") == .invalid("redirect to a Location without a host"))
    }
}

import Foundation

@Suite struct HeaderParsingTests {
    @Test func headerNamesCompareIgnoringASCIICaseOnly() {
        #expect(HTTPHeader.namesEqual("Content-Length", "content-length"))
        #expect(HTTPHeader.namesEqual("ETAG", "etag"))
        #expect(!HTTPHeader.namesEqual("x^", "x~"))
        #expect(!HTTPHeader.namesEqual("a[", "a{"))
        #expect(!HTTPHeader.namesEqual("abc", "abcd"))
        #expect([HTTPHeader("Set-Cookie", "a"), HTTPHeader("ETag", "\"v\"")].first(named: "etag") == "\"v\"")
    }

    @Test func headerLinesAreTrimmedOnBytes() {
        func t(_ s: String) -> String { String(decoding: HeaderLine.trimmed(Array(s.utf8)), as: UTF8.self) }
        #expect(t(" \tvalue  \r\n") == "value")
        #expect(t("\r\n") == "")
        #expect(t("a b") == "a b")
        #expect(t("é ") == "é")
    }
}
