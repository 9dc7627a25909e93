import Foundation
import TransferModel

/// Refuses the few malformed inputs on which toml++ 3.4 (inside TOMLKit 0.6.0) breaks its own
/// preconditions instead of reporting an error: a debug build aborts on an assertion, a release
/// build assumes the impossible (undefined behaviour). Found by `NoCrashPropertyTests`:
/// - a table header whose `[` or `[[` is followed by anything but a key or `]` (`[[[x]]]`,
///   `[=`, `[` then a line break) — toml++ PR #301 fixes it upstream;
/// - an array element that starts with a value terminator (`[}`, `[1, }`, a Unicode line
///   separator after `[`).
/// It also refuses a basic string's `\u0000` escape: valid TOML, but toml++ hands strings
/// over as C strings, so the text after it was dropped without a word (a header value or a
/// URL silently became another).
/// This is not a TOML parser: it follows strings, comments and brackets only far enough to
/// find those spots and where each top-level statement starts (for `ConfigLineIndex`);
/// everything else is toml++'s to judge. Valid TOML is never refused but for that NUL escape.
enum TOMLPrecheck {
    /// The first unsafe spot, if any, and the line of every table header and key (the
    /// scanner passes each top-level statement to the `ConfigLineIndex`).
    static func scan(_ text: String) -> (ConfigSyntaxError?, ConfigLineIndex) {
        var scanner = Scanner(Array(text.unicodeScalars))
        let unsafe = scanner.run()
        return (unsafe, scanner.index)
    }

    struct Scanner {
        let s: [Unicode.Scalar]
        var i = 0
        var line = 1, lineStart = 0
        /// Open `[` (arrays) and `{` (inline tables) of the value being read.
        var stack: [Unicode.Scalar] = []
        var index = ConfigLineIndex()
        /// The first `\u0000` (or `\U00000000`) escape in a basic string.
        var nulEscape: ConfigSyntaxError?

        init(_ s: [Unicode.Scalar]) { self.s = s }

        var atEnd: Bool { i >= s.count }
        func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

        mutating func advance() {
            if s[i] == "\n" { line += 1; lineStart = i + 1 }
            i += 1
        }

        func fail(_ message: String) -> ConfigSyntaxError {
            ConfigSyntaxError(line: line, column: i - lineStart + 1, message: message)
        }

        func describe(_ c: Unicode.Scalar?) -> String {
            guard let c else { return "the end" }
            if c == "\n" || c == "\r" { return "the end of the line" }
            return "'" + SafeQuote.quote(String(c), limit: 8) + "'"
        }

        mutating func run() -> ConfigSyntaxError? {
            var atStatementStart = true
            if peek() == "\u{FEFF}" { advance() }  // toml++ skips a byte-order mark
            while !atEnd {
                let c = s[i]
                if c == " " || c == "\t" { advance(); continue }
                if c == "\n" { atStatementStart = stack.isEmpty; advance(); continue }
                if c == "#" { skipComment(); continue }
                if c == "\"" || c == "'" {
                    if atStatementStart && stack.isEmpty { index.record(currentLine(), number: line) }
                    skipString(); atStatementStart = false; continue
                }
                if atStatementStart && stack.isEmpty && c == "[" {
                    index.record(currentLine(), number: line)
                    if let bad = checkHeader() { return bad }
                    skipLine()
                    continue
                }
                if atStatementStart && stack.isEmpty { index.record(currentLine(), number: line) }
                atStatementStart = false
                switch c {
                case "[", "{":
                    stack.append(c)
                    advance()
                    if c == "[", let bad = checkElementStart() { return bad }
                case "]", "}":
                    if !stack.isEmpty { stack.removeLast() }
                    advance()
                case ",":
                    advance()
                    if stack.last == "[", let bad = checkElementStart() { return bad }
                case "=":
                    advance()
                    while let c = peek(), c == " " || c == "\t" { advance() }
                    if let bad = checkDateTime() { return bad }
                default:
                    advance()
                }
            }
            return nulEscape
        }

        /// The text of the line being scanned.
        func currentLine() -> String {
            var end = lineStart
            while end < s.count && s[end] != "\n" { end += 1 }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: s[lineStart..<end])
            return String(text)
        }

        /// After `[` or `[[` and spaces: a key's first character or `]`.
        mutating func checkHeader() -> ConfigSyntaxError? {
            advance()
            if peek() == "[" { advance() }
            while let c = peek(), c == " " || c == "\t" { advance() }
            guard let c = peek() else { return nil }  // the document's end: toml++ reports it
            let isKeyStart = (c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c))) || "_-\"']".unicodeScalars.contains(c)
            return isKeyStart ? nil : fail("a table header must start with a key, saw \(describe(c))")
        }

        /// After an array's `[` or `,`: spaces, line breaks and comments, then a value or `]`.
        mutating func checkElementStart() -> ConfigSyntaxError? {
            while let c = peek() {
                if c == " " || c == "\t" || c == "\n" || (c == "\r" && peek(1) == "\n") { advance(); continue }
                if c == "#" { skipComment(); continue }
                break
            }
            guard let c = peek() else { return nil }
            let printable = c.isASCII && c.value > 0x20 && c.value < 0x7F
            return printable && c != "}" ? checkDateTime() : fail("expected a value in the array, saw \(describe(c))")
        }

        /// At a value's start: `YYYY-MM-DDT` (or `t`) must be followed by a digit of the time,
        /// and `YYYY-MM-DD D` (a space and one digit) must not end there (toml++ looks ahead
        /// past that digit and asserts it is not at a value's end).
        func checkDateTime() -> ConfigSyntaxError? {
            let digit = { (k: Int) in peek(k).map { ("0"..."9").contains($0) } ?? false }
            guard (0..<4).allSatisfy(digit), peek(4) == "-", digit(5), digit(6), peek(7) == "-", digit(8), digit(9) else { return nil }
            if peek(10) == "T" || peek(10) == "t", !digit(11) {
                return fail("expected the time after the date's \(describe(peek(10))), saw \(describe(peek(11)))")
            }
            if peek(10) == " ", digit(11), let after = peek(12), !("0"..."9").contains(after), after != ":" {
                return fail("expected a time such as 07:32:00 after the date and space, saw \(describe(peek(11)))")
            }
            return nil
        }

        mutating func skipComment() {
            while let c = peek(), c != "\n" { advance() }
        }

        mutating func skipLine() {
            while let c = peek(), c != "\n" {
                if c == "#" { skipComment(); return }
                if c == "\"" || c == "'" { skipString() } else { advance() }
            }
        }

        /// At a basic string's backslash: notes a NUL escape (the first one).
        mutating func noteNulEscape() {
            guard nulEscape == nil else { return }
            let digits = peek(1) == "u" ? 4 : peek(1) == "U" ? 8 : 0
            guard digits > 0, (2..<(2 + digits)).allSatisfy({ peek($0) == "0" }) else { return }
            nulEscape = fail("a string holds \\u0000 (NUL), which no header, URL or name can carry")
        }

        /// A basic or literal string, one-line or multi-line; a closing triple quote may be
        /// followed by up to two more quotes that belong to the content (`"""a""""`).
        mutating func skipString() {
            let q = s[i]
            let triple = peek(1) == q && peek(2) == q
            advance()
            if triple {
                advance(); advance()
                while !atEnd {
                    if q == "\"" && s[i] == "\\" { noteNulEscape(); advance(); if !atEnd { advance() }; continue }
                    if s[i] == q && peek(1) == q && peek(2) == q {
                        advance(); advance(); advance()
                        var extra = 0
                        while extra < 2 && peek() == q { advance(); extra += 1 }
                        return
                    }
                    advance()
                }
                return
            }
            while let c = peek(), c != "\n" {
                if q == "\"" && c == "\\" { noteNulEscape(); advance(); if !atEnd && peek() != "\n" { advance() }; continue }
                advance()
                if c == q { return }
            }
        }
    }
}
