import Foundation

/// ISO 8601 UTC with milliseconds (`2024-05-01T12:34:56.789Z`), computed by hand: pure,
/// `Sendable`, and identical on every platform (no formatter, locale or time zone involved).
public enum ExportTimestamp {
    public static func iso8601(_ date: Date) -> String {
        let totalMs = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let days = floorDiv(totalMs, 86_400_000)
        let msOfDay = totalMs - days * 86_400_000
        let (y, m, d) = civil(fromDays: days)
        let h = msOfDay / 3_600_000, mi = msOfDay / 60_000 % 60, s = msOfDay / 1000 % 60, ms = msOfDay % 1000
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(ms, 3))Z"
    }

    /// Milliseconds with exactly three decimals, `12.345`.
    public static func milliseconds(_ ms: Double) -> String {
        let micros = Int64((ms * 1000).rounded())
        let sign = micros < 0 ? "-" : ""
        let a = abs(micros)
        return "\(sign)\(a / 1000).\(pad(a % 1000, 3))"
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// Howard Hinnant's days-from-civil inverse (proleptic Gregorian calendar).
    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
