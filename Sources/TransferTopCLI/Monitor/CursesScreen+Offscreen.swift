import CNcurses
import Foundation

/// The off-screen terminal of `CursesScreen.init?(offscreen:)`, for tests of the real ncurses
/// path: what it opened, and the process state ncurses changes, to give back.
struct Offscreen {
    var output: UnsafeMutablePointer<FILE>
    var input: UnsafeMutablePointer<FILE>
    var screen: OpaquePointer?
    var locale: String?
    /// newterm installs handlers for these when they are at their defaults.
    static let signals = [SIGINT, SIGTERM, SIGTSTP, SIGWINCH]
    var handlers: [sigaction]

    /// Opens /dev/null both ways, saves the signal handlers and switches to a UTF-8 locale.
    static func enter() -> Offscreen? {
        guard let output = fopen("/dev/null", "w") else { return nil }
        guard let input = fopen("/dev/null", "r") else { fclose(output); return nil }
        let handlers = signals.map { sig -> sigaction in
            var old = sigaction()
            sigaction(sig, nil, &old)
            return old
        }
        let locale = setlocale(LC_ALL, nil).map { String(cString: $0) }
        if setlocale(LC_ALL, "C.UTF-8") == nil { _ = setlocale(LC_ALL, "en_US.UTF-8") }
        return Offscreen(output: output, input: input, screen: nil, locale: locale, handlers: handlers)
    }

    /// Deletes the screen (if any), closes the files, restores the handlers and the locale.
    func leave() {
        if let screen {
            _ = set_term(screen)
            _ = endwin()
            delscreen(screen)
        }
        fclose(output)
        fclose(input)
        for (sig, handler) in zip(Self.signals, handlers) {
            var h = handler
            sigaction(sig, &h, nil)
        }
        if let locale { _ = setlocale(LC_ALL, locale) }
    }
}

/// One cell of ncurses' screen, read back.
struct ScreenCell: Equatable {
    var text: String
    /// The right half of a wide character (ncurses' own mark, not a width guess).
    var isContinuation: Bool
    var attributes: UInt32
    var pair: Int16
}

extension CursesScreen {
    /// Which of ncurses' windows to read: `curscr` is what ncurses believes the terminal shows
    /// after the last refresh, `stdscr` what was drawn into it.
    enum VirtualScreen { case physical, drawn }

    /// Every cell of the virtual screen, row by row (cf. tig's `save_display`).
    func readBack(_ which: VirtualScreen = .physical) -> [[ScreenCell]] {
        guard let win = which == .physical ? tt_curscr() : tt_stdscr() else { return [] }
        let (width, height) = size
        var buffer = [wchar_t](repeating: 0, count: 8)
        var attrs: attr_t = 0
        var pair: Int16 = 0
        return (0..<height).map { y in
            (0..<width).map { x in
                let mark = tt_read_cell(win, Int32(y), Int32(x), &buffer, Int32(buffer.count), &attrs, &pair)
                let text = String(decoding: buffer.prefix { $0 != 0 }.compactMap { UnicodeScalar(UInt32(bitPattern: $0)) }
                    .flatMap { String($0).utf8 }, as: UTF8.self)
                return ScreenCell(text: text, isContinuation: mark > 1, attributes: UInt32(attrs), pair: pair)
            }
        }
    }

    /// The virtual screen as text, like `CellGrid.render()`: continuations skipped, rows
    /// joined by "\n", trailing spaces trimmed.
    func readBackText(_ which: VirtualScreen = .physical) -> String {
        readBack(which).map { row in
            var line = row.filter { !$0.isContinuation }.map(\.text).joined()
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}
