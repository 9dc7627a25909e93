import Foundation

/// Frame times and key latencies measured by the monitor itself, for `scripts/bench` (the
/// monitor with 10,000 tasks: median and p99 frame time, key latency). Written only when
/// `TRANSFERTOP_FRAME_LOG` names a file; one line per measurement:
///   `frame MS TASKS`  the time one `draw()` took (snapshot, layout, terminal update), and
///                     the number of tasks the frame showed;
///   `key MS`          from reading a key to the end of the first frame drawn after it.
/// Not a user feature: no option, no effect on drawing.
final class FrameLog {
    private let file: UnsafeMutablePointer<FILE>
    private var keyReadAt: ContinuousClock.Instant?

    init?(environment: [String: String]) {
        guard let path = environment["TRANSFERTOP_FRAME_LOG"], !path.isEmpty, let f = fopen(path, "w") else { return nil }
        file = f
    }

    deinit { fclose(file) }

    func keyRead(at t: ContinuousClock.Instant) {
        if keyReadAt == nil { keyReadAt = t }
    }

    func frameDrawn(began: ContinuousClock.Instant, ended: ContinuousClock.Instant, tasks: Int) {
        fputs("frame \(Self.ms(ended - began)) \(tasks)\n", file)
        if let k = keyReadAt {
            fputs("key \(Self.ms(ended - k))\n", file)
            keyReadAt = nil
        }
        fflush(file)
    }

    static func ms(_ d: Duration) -> String {
        String(format: "%.3f", (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18) * 1000)
    }
}
