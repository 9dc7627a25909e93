/// Speed averaged over a sliding window of (time, cumulative bytes) samples (SPEC T2).
///
/// Time is passed in (seconds on any monotonic scale), never read from a clock, so tests
/// are exact (STYLE 7).
public struct SpeedMeter: Sendable, Equatable {
    public var window: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    public init(window: Double = 3) {
        self.window = window
    }

    /// Records the cumulative byte count at `time`. A count that goes down (a download that
    /// restarted from zero) starts a new history rather than reporting a negative speed.
    public mutating func record(bytes: Int64, at time: Double) {
        if let last = samples.last, bytes < last.bytes || time < last.time { samples.removeAll() }
        if let last = samples.last, last.time == time { samples.removeLast() }
        samples.append((time, bytes))
        // Keep one sample at or before the window's start so the window is fully covered.
        while samples.count > 2, samples[1].time <= time - window { samples.removeFirst() }
    }

    /// Bytes per second over the window; 0 until two samples exist.
    public var bytesPerSecond: Double {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return 0 }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }

    /// Seconds until `remaining` bytes arrive at the current speed; nil when idle or unknown.
    public func eta(remaining: Int64) -> Double? {
        let speed = bytesPerSecond
        guard remaining >= 0, speed > 0 else { return nil }
        return Double(remaining) / speed
    }

    public static func == (a: SpeedMeter, b: SpeedMeter) -> Bool {
        a.window == b.window && a.samples.elementsEqual(b.samples) { $0.time == $1.time && $0.bytes == $1.bytes }
    }
}
