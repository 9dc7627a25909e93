import Testing
@testable import TransferKit

/// How a session's bandwidth limit is divided (DECISIONS 176): scripts of sharers in, limits out.
@Suite struct RateSharesTests {
    typealias S = RateShares.Sharer

    @Test func withoutASessionLimitEachTransferKeepsItsOwn() {
        let rates = RateShares()
        let sharers = [S(stage: .moving, own: 0, applied: 0), S(stage: .moving, own: 500, applied: 0)]
        #expect(rates.limits(for: sharers) == [0, 500])
        #expect(rates.changes(for: sharers).map(\.index) == [1])
    }

    @Test func aSessionLimitIsDividedEquallyAmongMovingTransfers() {
        let rates = RateShares(sessionLimit: 900)
        let sharers = Array(repeating: S(stage: .moving, own: 0, applied: 0), count: 3)
        #expect(rates.limits(for: sharers) == [300, 300, 300])
    }

    @Test func whatASlowerTaskLeavesGoesToTheOthers() {
        let rates = RateShares(sessionLimit: 1000)
        let sharers = [S(stage: .moving, own: 100, applied: 0), S(stage: .moving, own: 0, applied: 0),
                       S(stage: .moving, own: 600, applied: 0)]
        // 100 for the capped one; 900 left for two: 450 each, under the third's own 600.
        #expect(rates.limits(for: sharers) == [100, 450, 450])
    }

    @Test func connectingTransfersTakeNoShareButAreCappedAtTheirNext() {
        let rates = RateShares(sessionLimit: 1000)
        let sharers = [S(stage: .moving, own: 0, applied: 0), S(stage: .connecting, own: 0, applied: 0),
                       S(stage: .connecting, own: 0, applied: 0)]
        #expect(rates.limits(for: sharers) == [1000, 500, 500])
    }

    @Test func suspendedTransfersAreLeftAlone() {
        let rates = RateShares(sessionLimit: 1000)
        let sharers = [S(stage: .moving, own: 0, applied: 500), S(stage: .idle, own: 0, applied: 500)]
        #expect(rates.limits(for: sharers)[0] == 1000)
        #expect(rates.changes(for: sharers).map(\.index) == [0])
    }

    @Test func liftingTheLimitClearsWhatHandlesHave() {
        let rates = RateShares(sessionLimit: 0)
        let sharers = [S(stage: .moving, own: 0, applied: 500), S(stage: .moving, own: 0, applied: 0)]
        #expect(rates.changes(for: sharers).map(\.limit) == [0])
    }

    @Test func aShareIsNeverZeroWhichLibcurlReadsAsUnlimited() {
        #expect(RateShares.divide(2, among: [0, 0, 0]) == [1, 1, 1])
    }
}
