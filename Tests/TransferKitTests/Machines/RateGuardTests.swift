import Testing
@testable import TransferKit

/// The receive limit's token bucket (DECISIONS 176): clock readings in, take or pause out.
@Suite struct RateGuardTests {
    let second: UInt64 = 1_000_000_000

    @Test func withoutALimitEveryChunkIsTaken() {
        var g = RateGuard()
        let r1 = g.admits(1 << 20, now: 0)
        #expect(r1)
        let r2 = g.admits(1 << 20, now: 0)
        #expect(r2)
    }

    @Test func aChunkMayGoIntoDebtWhichPausesUntilRepaid() {
        var g = RateGuard()
        g.set(1000, now: 0)
        let r3 = g.admits(100, now: 0)
        #expect(!r3)  // nothing saved up yet
        let r4 = g.admits(2000, now: second / 100)
        #expect(r4)  // 10 tokens: taken, 1990 in debt
        let r5 = g.mayGoOn(now: 2 * second)
        #expect(!r5)  // 1990 refilled: out of debt, nothing over
        let r6 = g.mayGoOn(now: 2 * second + second / 50)
        #expect(r6)
    }

    /// A share re-divided (another transfer started or ended) keeps the debt: writing it off at
    /// each change would let a session overshoot by a receive buffer per transfer each time.
    @Test func aNewLimitKeepsTheDebtAndDropsTheSavings() {
        var g = RateGuard()
        g.set(1000, now: 0)
        let taken = g.admits(2000, now: second / 100)
        #expect(taken)  // 10 tokens: taken, 1990 in debt
        g.set(2000, now: second / 100)
        let early = g.mayGoOn(now: second)
        #expect(!early)  // 1990 in debt at 2000/s: not repaid before ~1 s
        let later = g.mayGoOn(now: second + second / 10)
        #expect(later)
        g.set(500, now: 10 * second)  // a quarter second's savings, dropped
        let saved = g.admits(1, now: 10 * second)
        #expect(!saved)
    }

    @Test func idleTimeSavesUpAQuarterSecondAtMost() {
        var g = RateGuard()
        g.set(100_000, now: 0)
        let r7 = g.admits(25_000, now: 10 * second)
        #expect(r7)  // 25,000 saved, not a million
        let r8 = g.admits(1, now: 10 * second)
        #expect(!r8)
    }

    @Test func liftingTheLimitLetsAPausedTransferGoOn() {
        var g = RateGuard()
        g.set(10, now: 0)
        let r9 = g.mayGoOn(now: 0)
        #expect(!r9)
        g.set(0, now: 0)
        let r10 = g.mayGoOn(now: 0)
        #expect(r10)
    }
}
