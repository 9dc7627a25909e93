/// Speed as a moving average over a fixed window of (time, cumulative bytes) samples (SPEC
/// T2), as curl and aria2 do: the bytes counted since exactly `window` seconds ago
/// (interpolated between the samples around that moment) over the window's length. Counting
/// from whichever sample happened to be first made both numerator and denominator jump with
/// every chunk and the speed flip between two values frame after frame.
///
/// Time is passed in (seconds on any monotonic scale), never read from a clock, so tests
/// are exact.
public struct SpeedMeter: Sendable, Equatable {
    public var window: Double
    private var samples: [(time: Double, bytes: Int64)] = []
    /// Set by `restartCalmly`: until the history covers a whole window, the bytes are divided
    /// by the whole window, so the data a resumed transfer finds buffered is not a spike.
    private var calm = false

    public init(window: Double = 5) {
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
        if calm, let first = samples.first, time - first.time >= window { calm = false }
    }

    /// Forgets the history (a task resumed after a pause): the speed starts again from zero
    /// and rises over one window instead of jumping.
    public mutating func restartCalmly() {
        if let last = samples.last { samples = [last] }
        calm = true
    }

    /// Bytes per second over the window; 0 until two samples exist.
    public var bytesPerSecond: Double {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return 0 }
        let start = Swift.max(first.time, last.time - window)
        let elapsed = last.time - start
        return (Double(last.bytes) - bytes(at: start)) / (calm ? Swift.max(elapsed, window) : elapsed)
    }

    /// The byte count at `time`, linear between the samples around it.
    func bytes(at time: Double) -> Double {
        guard let after = samples.firstIndex(where: { $0.time >= time }) else { return Double(samples.last?.bytes ?? 0) }
        guard after > 0 else { return Double(samples[0].bytes) }
        let (a, b) = (samples[after - 1], samples[after])
        let f = (time - a.time) / (b.time - a.time)
        return Double(a.bytes) + f * Double(b.bytes - a.bytes)
    }

    /// Seconds until `remaining` bytes arrive at the current speed; nil when idle or unknown.
    public func eta(remaining: Int64) -> Double? {
        let speed = bytesPerSecond
        guard remaining >= 0, speed > 0 else { return nil }
        return Double(remaining) / speed
    }

    public static func == (a: SpeedMeter, b: SpeedMeter) -> Bool {
        a.window == b.window && a.calm == b.calm
            && a.samples.elementsEqual(b.samples) { $0.time == $1.time && $0.bytes == $1.bytes }
    }
}
