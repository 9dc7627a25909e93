/// Terminal column widths of graphemes, after Unicode's East-Asian Width (wide and fullwidth)
/// and emoji presentation. Simple ranges, not a full `wcwidth`, but right for CJK, Hangul,
/// fullwidth forms and common emoji, which is what URLs and file names in practice contain.
public enum DisplayWidth {
    /// Columns a grapheme takes: 2 for wide ones, 0 for a lone zero-width scalar, else 1.
    ///
    /// Control characters count 1 because the grid draws them as `?` (a raw escape byte in a
    /// URL must never reach the terminal).
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let v = scalars.first?.value else { return 0 }
        if scalars.count == 1 && isZeroWidth(v) { return 0 }
        // A base character made "emoji" by U+FE0F (e.g. ❤️) keeps its own width: ncurses places
        // cells by the C library's wcwidth, which gives the selector 0 and ❤ 1. Counting 2 here
        // shifted the rest of the row by a column (found by the off-screen ncurses test).
        if isWide(v) { return 2 }
        return 1
    }

    /// The width of a whole string as the grid would draw it.
    public static func of(_ text: String) -> Int {
        var total = 0
        for c in text { total += of(c) }
        return total
    }

    /// Whether a scalar draws nothing: combining marks, zero-width space/joiner, selectors.
    static func isZeroWidth(_ v: UInt32) -> Bool {
        (0x0300...0x036F).contains(v) || (0x200B...0x200D).contains(v) || (0xFE00...0xFE0F).contains(v)
    }

    // Ranges from Unicode's EastAsianWidth.txt (W and F), merged where adjacent.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
        0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F,
        0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
        0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F5, 0x26FA...0x26FD,
        0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728, 0x274C...0x274C, 0x2753...0x2755,
        0x2757...0x2757, 0x2795...0x2797, 0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C,
        0x2B50...0x2B50, 0x2B55...0x2B55, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x18AFF,
        0x1B000...0x1B2FF, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E,
        0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F320, 0x1F32D...0x1F335,
        0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3,
        0x1F3E0...0x1F3F0, 0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440...0x1F440,
        0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567,
        0x1F57A...0x1F57A, 0x1F595...0x1F596, 0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F,
        0x1F680...0x1F6C5, 0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7,
        0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F93A,
        0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD,
        0x30000...0x3FFFD,
    ]

    static func isWide(_ v: UInt32) -> Bool {
        // Fast path: everything below U+1100 is narrow, which is nearly all text we draw.
        guard v >= 0x1100 else { return false }
        var lo = 0, hi = wideRanges.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            let r = wideRanges[mid]
            if v < r.lowerBound { hi = mid - 1 } else if v > r.upperBound { lo = mid + 1 } else { return true }
        }
        return false
    }
}
