import Foundation
import Synchronization
import TestSupport
@testable import TransferKit

/// A timer clock a test moves forward instead of waiting, so a 60-second timeout is tested in
/// milliseconds and deterministically (DECISIONS 24, 180).
///
/// The skew is added to the monotonic clock; the engine reads this clock only where it checks
/// deadlines, so setting a skew of S means "S more seconds passed since the last byte" and
/// setting it back to 0 rewinds. `scans` counts finished timer scans, so a test can wait until
/// the engine has looked at the clock since it moved it (an event, not a sleep).
final class TestEngineClock: EngineClock {
    private let skew = Atomic<UInt64>(0)
    private let scanCount = Atomic<Int>(0)

    var scans: Int { scanCount.load(ordering: .acquiring) }

    func now() -> UInt64 { Monotonic.now() &+ skew.load(ordering: .relaxed) }
    func timerScanFinished() { scanCount.add(1, ordering: .releasing) }

    /// Moves the clock to `seconds` ahead of real time and wakes `session`'s transfer thread.
    /// Returns after the engine has finished two timer scans with the new time (the first may
    /// have begun before the change).
    func advance(_ session: TransferSession, to seconds: Double) async throws {
        let before = scans
        skew.store(UInt64(max(0, seconds) * 1e9), ordering: .relaxed)
        session.engine.multi.wakeup()
        // TestSupport's generous deadline, which expires only on a bug: a machine that stalls for
        // a minute must not fail a live engine.
        let deadline = Date().addingTimeInterval(eventDeadline)
        while scans < before + 2 {
            if Date() > deadline { throw TestEngineClockTimeout(scans: scans - before) }
            session.engine.multi.wakeup()
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}

/// The transfer thread did not finish two timer scans by the deadline (a hung engine).
struct TestEngineClockTimeout: Error, CustomStringConvertible {
    var scans: Int
    var description: String { "the transfer thread finished \(scans) of 2 timer scans in \(Int(eventDeadline)) s" }
}

extension TransferSession {
    /// A session whose engine checks its deadlines against `clock`.
    convenience init(configuration: TransferConfiguration, delegate: (any TransferSessionDelegate)? = nil, clock: TestEngineClock) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: nil, name: nil, timerClock: clock)
    }
}
