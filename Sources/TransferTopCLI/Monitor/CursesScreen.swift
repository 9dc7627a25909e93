import CNcurses
import Foundation
import TransferKit
import TransferTopUI

/// The only code that calls ncurses, and only from the UI loop's thread (one
/// owner). Flushes `CellRun`s from the pure grid and decodes keys into `Key`s.
final class CursesScreen {
    private(set) var depth: ColorDepth = .none
    private(set) var pairs: [Int32] = []
    private(set) var attributes: [UInt32] = []
    private var previous = CellGrid(width: 0, height: 0)
    private var screen: OpaquePointer?
    /// Set only by `init?(offscreen:)`: what `end()` must release and restore.
    private var offscreen: Offscreen?
    private var isOffscreen = false

    /// ncurses' attribute bits (NCURSES_BITS(mask, shift) with NCURSES_ATTR_SHIFT 8); the
    /// A_* macros are not imported by Swift.
    enum Attr {
        static let underline: UInt32 = 1 << 17
        static let reverse: UInt32 = 1 << 18
        static let dim: UInt32 = 1 << 20
        static let bold: UInt32 = 1 << 21
        static let italic: UInt32 = 1 << 31
    }

    /// Whether terminfo has an entry for `terminal` (initscr exits the process when not).
    /// Asked once per process: a command decides monitor or line mode in two or three places,
    /// and each answer reads the terminfo file.
    static func knows(terminal: String) -> Bool {
        known.withLock { cache in
            if let (name, answer) = cache, name == terminal { return answer }
            let answer = tt_terminal_known(terminal) == 1
            cache = (terminal, answer)
            return answer
        }
    }

    private static let known = Locked<(String, Bool)?>(nil)

    /// Takes over the terminal: locale, raw-ish keyboard, no echo, keypad, frame-time reads.
    init(environment: [String: String], inputIsTerminal: Bool) {
        setlocale(LC_ALL, "")
        if inputIsTerminal {
            _ = initscr()
        } else {
            // stdin is a pipe (e.g. `-i -`): read keys from the controlling terminal.
            let tty = fopen("/dev/tty", "r")
            screen = newterm(nil, fdopen(STDOUT_FILENO, "w"), tty)
            if let screen { _ = set_term(screen) }
        }
        TerminalRestore.install()
        configure(environment: environment)
    }

    /// Keyboard modes, cursor and colours, shared by the real terminal and the off-screen one.
    private func configure(environment: [String: String]) {
        cbreak()
        noecho()
        nonl()
        _ = keypad(tt_stdscr(), true)
        // Click and wheel; Shift-drag still selects text in xterm-like terminals.
        tt_mouse_on()
        _ = curs_set(0)
        set_escdelay(25)
        // COLORS is 0 until start_color(): reading the depth first gave every terminal 16
        // colours at most and TERM=xterm none. Start colour unless NO_COLOR says no.
        if has_colors(), ColorDepth.effective(supported: .ansi16, environment: environment) != .none {
            start_color()
            use_default_colors()
        }
        depth = Self.colorDepth(environment)
    }

    /// An off-screen terminal for tests: ncurses draws for `terminal` into /dev/null
    /// and reads no keys, with a fixed size; the process's own terminal is never touched.
    /// Switches the locale to UTF-8 for wide characters; `end()` deletes the screen and gives
    /// back the locale and the signal handlers ncurses installs. Nil if `terminal` is unknown.
    init?(offscreen terminal: String, lines: Int, columns: Int, environment: [String: String]) {
        guard let saved = Offscreen.enter() else { return nil }
        guard let s = newterm(terminal, saved.output, saved.input) else { saved.leave(); return nil }
        offscreen = saved
        offscreen?.screen = s
        isOffscreen = true
        screen = s
        _ = set_term(s)
        _ = resize_term(Int32(lines), Int32(columns))
        configure(environment: environment)
    }

    static func colorDepth(_ env: [String: String]) -> ColorDepth {
        guard has_colors() else { return .none }
        // ncurses draws palette indices; truecolor themes are mapped to the 256-colour cube.
        let supported = ColorDepth.detect(environment: env, terminfoColors: Int(tt_colors()))
        let capped = min(supported, tt_colors() >= 256 ? .xterm256 : .ansi16)
        return ColorDepth.effective(supported: capped, environment: env)
    }

    /// Colour pairs and attributes for every role, one pair per role.
    func apply(_ theme: ResolvedTheme) {
        pairs = []
        attributes = []
        for (i, style) in theme.styles.enumerated() {
            var attr = style.attributes.reduce(UInt32(0)) { $0 | Self.bits($1) }
            var pair: Int32 = 0
            if depth != .none, i + 1 < Int(tt_color_pairs()) {
                let (fg, fgBold) = color(style.foreground)
                let (bg, _) = color(style.background)
                init_pair(Int16(i + 1), Int16(fg), Int16(bg))
                pair = tt_color_pair(Int32(i + 1))
                if fgBold { attr |= Attr.bold }
            }
            pairs.append(pair)
            attributes.append(attr)
        }
        invalidate()
    }

    /// A palette index the terminal has; bright colours on an 8-colour terminal become bold.
    func color(_ c: ResolvedColor) -> (Int32, Bool) {
        switch c {
        case .default: return (-1, false)
        case .index(let i):
            let colors = Int(tt_colors())
            if i < colors { return (Int32(i), false) }
            return (Int32(i % 8), i >= 8 && i < 16)
        case .rgb(let r, let g, let b):
            return (Int32(ColorFallback.nearest256(r, g, b) % max(1, Int(tt_colors()))), false)
        }
    }

    static func bits(_ a: TextAttribute) -> UInt32 {
        switch a {
        case .bold: return Attr.bold
        case .dim: return Attr.dim
        case .italic: return Attr.italic
        case .underline: return Attr.underline
        case .reverse: return Attr.reverse
        }
    }

    var size: (width: Int, height: Int) { (Int(tt_cols()), Int(tt_lines())) }

    /// Forgets what is on screen so the next flush redraws everything.
    func invalidate() {
        previous = CellGrid(width: 0, height: 0)
        _ = clearok(tt_stdscr(), true)
    }

    /// Draws only what changed since the last frame, then updates the terminal once.
    func flush(_ grid: CellGrid) {
        for run in grid.diff(from: previous) { draw(run) }
        previous = grid
        _ = refresh()
    }

    private func draw(_ run: CellRun) {
        var column = run.column
        var i = 0
        while i < run.cells.count {
            let role = run.cells[i].role
            var text = ""
            var width = 0
            while i < run.cells.count, run.cells[i].role == role {
                text += run.cells[i].grapheme
                width += run.cells[i].isContinuation ? 0 : 1
                i += 1
            }
            setStyle(role)
            _ = mvaddstr(Int32(run.row), Int32(column), text)
            column += run.cells[..<i].count == 0 ? 0 : 0
            column = run.column + i
        }
        _ = attrset(0)
    }

    private func setStyle(_ role: StyleRole) {
        let i = role.index
        guard i < pairs.count else { _ = attrset(0); return }
        _ = attrset(Int32(bitPattern: UInt32(bitPattern: pairs[i]) | attributes[i]))
    }

    enum Input: Equatable {
        case key(Key)
        case mouse(MouseEvent)
        case resize
        case none
    }

    /// Waits up to `milliseconds` for a key.
    func read(milliseconds: Int32) -> Input {
        timeout(milliseconds)
        var ch: wint_t = 0
        let r = wget_wch(tt_stdscr(), &ch)
        if r == ERR { return .none }
        if r == KEY_CODE_YES {
            if Int32(ch) == tt_key_resize() { return .resize }
            if Int32(ch) == tt_key_mouse() { return Self.mouse() }
            return Self.functionKey(Int32(ch)).map(Input.key) ?? .none
        }
        return Self.character(UInt32(ch)).map(Input.key) ?? .none
    }

    /// The mouse event ncurses decoded; presses of other buttons and releases are ignored.
    static func mouse() -> Input {
        var x: Int32 = 0, y: Int32 = 0
        switch tt_mouse_read(&x, &y) {
        case 1: return .mouse(MouseEvent(.click, column: Int(x), row: Int(y)))
        case 2: return .mouse(MouseEvent(.wheelUp, column: Int(x), row: Int(y)))
        case 3: return .mouse(MouseEvent(.wheelDown, column: Int(x), row: Int(y)))
        default: return .none
        }
    }

    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_BTAB: return .backTab
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case (KEY_F0 + 1)...(KEY_F0 + 12): return .function(Int(code - KEY_F0))
        default: return nil
        }
    }

    static func character(_ v: UInt32) -> Key? {
        switch v {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .ctrl(Character(UnicodeScalar(v + 96)!))
        default: return UnicodeScalar(v).map { .char(Character($0)) }
        }
    }

    /// Gives the terminal back (idempotent).
    func end() {
        if isOffscreen {
            // endwin, delscreen, then the locale and signal handlers back as they were.
            offscreen?.leave()
            offscreen = nil
            return
        }
        TerminalRestore.restore()
    }
}

/// Restores the terminal on any way out: normal exit (atexit), and crashes (SIGSEGV, SIGABRT,
/// SIGBUS, SIGFPE: restore, then die of the same signal so the exit status stays honest).
/// SIGINT/SIGTERM are handled by the UI loop itself (they cancel with resume data first).
enum TerminalRestore {
    nonisolated(unsafe) static var active = false

    static func install() {
        active = true
        atexit { TerminalRestore.restore() }
        for sig in [SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL] {
            signal(sig) { signo in
                TerminalRestore.restore()
                signal(signo, SIG_DFL)
                raise(signo)
            }
        }
    }

    static func restore() {
        guard active else { return }
        active = false
        _ = endwin()
    }
}
