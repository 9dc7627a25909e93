import Foundation
import Synchronization

/// Injected time for the engine's own timers: a test moves the timer clock forward
/// instead of waiting, so a 60-second timeout is tested in milliseconds and deterministically.
///
/// The skew is added to the monotonic clock only where the engine *checks* deadlines (the
/// timer scan and the poll timeout); byte timestamps and metrics stay on real time. Setting a
/// skew of S therefore means "S more seconds passed since the last byte"; setting it back to 0
/// rewinds. `scans` counts finished timer scans, so a test can wait until the engine has
/// looked at the clock since it moved it (an event, not a sleep). Zero cost when unused: one
/// relaxed atomic load per scan.
final class EngineTestClock: Sendable {
    private let skew = Atomic<UInt64>(0)
    private let scanCount = Atomic<Int>(0)

    var skewNanos: UInt64 { skew.load(ordering: .relaxed) }
    var scans: Int { scanCount.load(ordering: .acquiring) }

    func setSkew(seconds: Double) { skew.store(UInt64(max(0, seconds) * 1e9), ordering: .relaxed) }
    func scanned() { scanCount.add(1, ordering: .releasing) }
}

extension TransferEngine {
    /// The time the timer scan compares deadlines with.
    var timerNow: UInt64 { Monotonic.now() &+ testClock.skewNanos }

    /// Moves the timer clock to `seconds` ahead of real time and wakes the transfer thread.
    /// Returns after the engine has finished two timer scans with the new clock (the first may
    /// have begun before the change).
    func advanceTimers(to seconds: Double) async throws {
        let before = testClock.scans
        testClock.setSkew(seconds: seconds)
        multi.wakeup()
        let deadline = Date().addingTimeInterval(60)
        while testClock.scans < before + 2 {
            if Date() > deadline { throw EngineTestClockTimeout(scans: testClock.scans - before) }
            multi.wakeup()
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}

/// The transfer thread did not finish two timer scans within a minute (a hung engine).
struct EngineTestClockTimeout: Error, CustomStringConvertible {
    var scans: Int
    var description: String { "the transfer thread finished \(scans) of 2 timer scans in 60 s" }
}
