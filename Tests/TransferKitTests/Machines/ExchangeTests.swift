import Foundation
import Testing
import TransferModel
@testable import TransferKit

/// Scripts of events and what the exchange machine decides: no libcurl, no threads, no clock.
@Suite struct ExchangeTests {
    let next = TransferRequest(url: URL(string: "http://127.0.0.1:1/next")!)
    let space = ProtectionSpace(host: "127.0.0.1", port: 1, protocol: "http", realm: "r", authenticationMethod: .httpBasic)

    func stageName(_ e: Exchange) -> String {
        switch e.stage {
        case .sending: "sending"
        case .keptAside(.redirect): "keptAside(redirect)"
        case .keptAside(.challenge): "keptAside(challenge)"
        case .awaitingDisposition(let d): d == nil ? "awaitingDisposition" : "awaitingDisposition(deferred)"
        case .receiving(let body): "receiving(\(body))"
        case .awaitingRedirectDecision: "awaitingRedirectDecision"
        case .awaitingChallengeAnswer: "awaitingChallengeAnswer"
        case .awaitingTrustAnswer: "awaitingTrustAnswer"
        case .awaitingBodyStream: "awaitingBodyStream"
        case .probingTrust: "probingTrust"
        }
    }

    @Test func aPlainResponseIsDeliveredAndEndsTheTask() {
        var e = Exchange()
        #expect(!e.sawFinalHead)
        e.headBegan()
        e.accept(partialContent: false)
        #expect(e.bodyRoute == .deliver && e.sawFinalHead)
        #expect(e.hopEnded(curlSucceeded: true, bodyFailed: false) == .finish)
        #expect(e.hopEnded(curlSucceeded: false, bodyFailed: false) == .failed)
        #expect(e.hopEnded(curlSucceeded: true, bodyFailed: true) == .failed)
    }

    @Test func aRedirectKeepsItsBodyAsideAndWaitsForTheDelegate() {
        var e = Exchange()
        e.keepAside(.redirect(next))
        #expect(e.bodyRoute == .keepAside && e.keepsBodyAside)
        guard case .proposeRedirect(let proposed) = e.hopEnded(curlSucceeded: true, bodyFailed: false) else {
            Issue.record("expected a proposed redirect")
            return
        }
        #expect(proposed.url == next.url)
        e.awaitRedirectDecision()
        #expect(e.awaitsDecision && e.timersStopped)
        let first = e.redirectAnswered(), second = e.redirectAnswered()
        #expect(first)
        #expect(!second, "a second answer is ignored")
        e.nextHop()
        #expect(stageName(e) == "sending")
    }

    @Test func aRefusedRedirectDeliversTheKeptAsideBody() {
        var e = Exchange()
        e.keepAside(.redirect(next))
        e.awaitRedirectDecision()
        _ = e.redirectAnswered()
        e.accept(partialContent: false)
        e.askDisposition()
        e.deliverKeptAside()
        #expect(e.bodyRoute == .deliver)
    }

    @Test func aFailedRedirectHopFailsInsteadOfFollowing() {
        var e = Exchange()
        e.keepAside(.redirect(next))
        #expect(e.hopEnded(curlSucceeded: false, bodyFailed: false) == .failed)
    }

    @Test func aChallengeIsAskedAndItsAnswerStartsTheNextHop() {
        var e = Exchange()
        e.keepAside(.challenge(space))
        #expect(e.hopEnded(curlSucceeded: true, bodyFailed: false) == .askChallenge(space))
        e.awaitChallengeAnswer()
        #expect(e.awaitsDecision && e.timersStopped)
        let first = e.challengeAnswered(), second = e.challengeAnswered()
        #expect(first && !second)
    }

    @Test func libcurlsOwnDigestAnswerStartsTheHeadAgain() {
        var e = Exchange()
        e.keepAside(.challenge(space))
        e.headBegan()
        #expect(stageName(e) == "sending")
        e.accept(partialContent: false)
        #expect(e.hopEnded(curlSucceeded: true, bodyFailed: false) == .finish)
    }

    @Test func theDispositionHoldsBytesAndDefersASuccessfulEnd() {
        var e = Exchange()
        e.accept(partialContent: false)
        e.askDisposition()
        #expect(e.bodyRoute == .hold && !e.timersStopped)
        let finishesNow = e.mayFinish(.init(error: nil, keepPartialFile: false))
        #expect(!finishesNow)
        #expect(stageName(e) == "awaitingDisposition(deferred)")
        #expect(e.timersStopped)
        let answered = e.dispositionAnswered()
        #expect(answered != nil && answered! != nil, "the deferred ending comes back with the answer")
        #expect(e.bodyRoute == .deliver)
        let again = e.dispositionAnswered()
        #expect(again == nil, "a second answer is ignored")
    }

    @Test func aFailureDoesNotWaitForTheDisposition() {
        var e = Exchange()
        e.accept(partialContent: false)
        e.askDisposition()
        let finishesNow = e.mayFinish(.init(error: TransferError(.timedOut, "t"), keepPartialFile: false))
        #expect(finishesNow)
    }

    @Test func anUnusableRangeAnswerAbortsTheHopAndRestartsFromZero() {
        var e = Exchange()
        e.accept(partialContent: true)
        e.refuseBody(restartReason: "the validator changed")
        #expect(e.bodyRoute == .abort)
        #expect(e.restartReason == "the validator changed")
        #expect(e.hopEnded(curlSucceeded: false, bodyFailed: false) == .restartFromZero)
        e.nextHop()
        #expect(e.bodyRoute == .deliver && e.ranges == .partialContentSeen)
    }

    @Test func aResourceShorterThanThePartialRestartsFromZero() {
        var e = Exchange()
        e.offsetBeyondResource()
        #expect(e.hopEnded(curlSucceeded: false, bodyFailed: false) == .restartFromZero)
    }

    @Test func aWholePartialDropsTheErrorBody() {
        var e = Exchange()
        e.accept(partialContent: false)
        e.dropBodyAsComplete()
        #expect(e.bodyRoute == .discard && e.bodyIsAlreadyComplete)
        #expect(e.hopEnded(curlSucceeded: true, bodyFailed: false) == .finish)
    }

    @Test func serverTrustIsProbedOncePerTask() {
        var e = Exchange()
        let probes = e.probeTrust(reason: "self-signed")
        #expect(probes)
        #expect(e.isProbingTrust && e.probeReason == "self-signed")
        e.nextHop()
        #expect(e.isProbingTrust, "the probe hop keeps its stage")
        #expect(e.hopEnded(curlSucceeded: true, bodyFailed: false) == .trustProbeEnded)
        let trust = ServerTrust(host: "h", port: 1, certificates: ["pem"], reason: "self-signed")
        e.awaitTrustAnswer(trust)
        #expect(e.awaitsDecision && e.timersStopped)
        let answered = e.trustAnswered(), again = e.trustAnswered()
        #expect(answered?.host == "h" && again == nil)
        let probesAgain = e.probeTrust(reason: "again")
        #expect(!probesAgain)
    }

    @Test func aBodyStreamIsAwaitedWithTheResourceTimerRunning() {
        var e = Exchange()
        e.awaitBodyStream()
        #expect(e.awaitsDecision && !e.timersStopped)
        let first = e.bodyStreamArrived(), second = e.bodyStreamArrived()
        #expect(first && !second)
    }

    @Test func a206RecordsThatTheServerHonoursRanges() {
        var e = Exchange()
        #expect(e.ranges == .none)
        e.accept(partialContent: true)
        #expect(e.ranges == .partialContentSeen)
    }
}
