import Foundation

/// Monotonic nanoseconds for deadlines and phase timestamps; wall-clock `Date`s for metrics
/// are derived from one anchor so they never jump with the system clock.
struct Monotonic {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    let anchorNanos: UInt64
    let anchorDate: Date

    init() {
        anchorNanos = Monotonic.now()
        anchorDate = Date()
    }

    func date(_ nanos: UInt64) -> Date {
        anchorDate.addingTimeInterval(Double(Int64(bitPattern: nanos &- anchorNanos)) / 1e9)
    }
}
