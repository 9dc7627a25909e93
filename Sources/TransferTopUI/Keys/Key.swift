/// A key press, as the backend decodes it from ncurses.
public enum Key: Sendable, Equatable, Hashable, CustomStringConvertible {
    case char(Character)
    case ctrl(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case tab, backTab, enter, escape, backspace, delete
    case function(Int)

    /// Names used in key-binding files and the help screen. Single printable characters
    /// name themselves; `space` and `#`… are spelt out because the file format needs it.
    static let named: [(String, Key)] = [
        ("up", .up), ("down", .down), ("left", .left), ("right", .right),
        ("pgup", .pageUp), ("pgdn", .pageDown), ("home", .home), ("end", .end),
        ("tab", .tab), ("backtab", .backTab), ("enter", .enter), ("esc", .escape),
        ("backspace", .backspace), ("delete", .delete), ("space", .char(" ")),
        ("hash", .char("#")), ("equals", .char("=")),
    ]

    /// Parses `j`, `R`, `?`, `up`, `pgdn`, `ctrl-c`/`C-c`, `f1`…`f12`; nil for anything else.
    public init?(name: String) {
        if name.count == 1, let c = name.first, !c.isWhitespace { self = .char(c); return }
        let lower = name.lowercased()
        if let key = Key.named.first(where: { $0.0 == lower })?.1 { self = key; return }
        for prefix in ["ctrl-", "c-"] where lower.hasPrefix(prefix) && lower.count == prefix.count + 1 {
            self = .ctrl(lower.last!)
            return
        }
        guard lower.hasPrefix("f"), let n = Int(lower.dropFirst()), (1...12).contains(n) else { return nil }
        self = .function(n)
    }

    /// The name `init(name:)` accepts back.
    public var description: String {
        if let name = Key.named.first(where: { $0.1 == self })?.0 { return name }
        switch self {
        case .char(let c): return String(c)
        case .ctrl(let c): return "ctrl-\(c)"
        case .function(let n): return "f\(n)"
        default: return "?"
        }
    }
}
