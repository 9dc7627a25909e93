/// Where the engine's timers read the time: monotonic nanoseconds, the scale of `Monotonic`.
///
/// Only the places that *check* deadlines read it (the timer scan and the poll timeout);
/// byte timestamps and metrics read `Monotonic` directly, so a clock that runs ahead moves
/// deadlines and nothing else. The transfer thread sleeps in `curl_multi_poll` with a timeout
/// computed from `now()`, so the clock is asked for the time, never to sleep (DECISIONS 180).
protocol EngineClock: Sendable {
    /// The time the timer scan compares deadlines with.
    func now() -> UInt64
    /// Called on the transfer thread after each timer scan, once its expired timers have fired.
    func timerScanFinished()
}

extension EngineClock {
    func timerScanFinished() {}
}

/// The clock of every session: the monotonic clock itself.
struct MonotonicEngineClock: EngineClock {
    func now() -> UInt64 { Monotonic.now() }
}

extension TransferEngine {
    /// The time the timer scan compares deadlines with.
    var timerNow: UInt64 { timerClock.now() }
}
