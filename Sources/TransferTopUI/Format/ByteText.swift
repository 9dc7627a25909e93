/// Text written straight into a byte buffer: line mode writes two lines per URL of a long
/// list and a table row per URL at the end, where making a `String` per field (an
/// interpolation, a `description`) cost more instructions than the rest of the line.
public enum ByteText {
    /// `text`'s UTF-8 bytes, copied at once.
    @inline(__always)
    public static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// `n` in decimal, as `"\(n)"` writes it (a minus sign first when negative): digit by
    /// digit from the highest power of ten, each appended where it goes.
    public static func appendInteger(_ n: Int, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        let m = n.magnitude
        var power: UInt = 1
        while m / power >= 10 { power &*= 10 }
        var rest = m
        while power > 0 {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest / power))
            rest %= power
            power /= 10
        }
    }
}
