import Testing
@testable import TransferTopUI

/// The TOML layer under job, theme and key files: toml++ through TOMLKit, our line index, and
/// the precheck that keeps toml++ 3.4's broken preconditions (aborts in debug, undefined
/// behaviour in release) from being reached.
@Suite struct ConfigDocumentTests {
    @Test func valuesAndLines() throws {
        let doc = try ConfigDocument.parse("""
            # top
            title = "x"
            [[session]]
            name = 'a'

            [[session]]
            n = 3
              [[session.task]]
              url = "u"
            [[session.task]]
            f = 2.5
            when = 1979-05-27T07:32:00Z
            list = [1, "two", { three = true }]
            """)
        #expect(doc.root["title"] == .string("x"))
        let sessions = doc.root["session"]?.array ?? []
        #expect(sessions.count == 2 && sessions[1].table?["n"] == .integer(3))
        #expect(doc.line(of: "title") == 2)
        #expect(doc.line(of: "session[0]") == 3 && doc.line(of: "session[0].name") == 4)
        #expect(doc.line(of: "session[1].n") == 7)
        #expect(doc.line(of: "session[1].task[0].url") == 9)
        #expect(doc.line(of: "session[1].task[1].f") == 11)
        // A key the index does not know falls back to its table.
        #expect(doc.line(of: "session[1].task[1].nope") == 10)
        #expect(doc.line(of: "nothing.here") == 1)
        let task = sessions[1].table?["task"]?.array?[1].table
        #expect(task?["f"] == .float(2.5))
        #expect(task?["list"]?.array?.count == 3)
        if case .dateTime(let text)? = task?["when"] { #expect(text.contains("1979-05-27")) } else { Issue.record("no date") }
    }

    /// Each of these once reached a toml++ assertion (found by NoCrashPropertyTests).
    @Test(arguments: [
        ("[[[x]]]", 1, "a table header must start with a key"),
        ("ok = 1\n[=", 2, "a table header must start with a key, saw '='"),
        ("[\nx = 1", 1, "saw the end of the line"),
        ("\u{FEFF}[[[{ 0b", 1, "a table header must start with a key"),
        ("a = [}", 1, "expected a value in the array, saw '}'"),
        ("a = [1,\n  # c\n }", 3, "expected a value in the array"),
        ("a = [\u{2028}1]", 1, "expected a value in the array"),
        ("d = 1979-05-27true", 1, "expected the time after the date's 't', saw 'r'"),
        ("d = [1979-05-27T]", 1, "expected the time"),
        ("t = { d = 1979-05-27tx }", 1, "expected the time"),
        ("d = 2024-01-01 1\n", 1, "expected a time such as 07:32:00"),
        ("d = [2024-01-01 1]", 1, "expected a time such as 07:32:00"),
        ("[a] # a comment with \"\"\"\n[[[x]]]", 2, "a table header must start with a key"),
    ])
    func unsafeInputsAreRefusedFirst(text: String, line: Int, message: String) {
        #expect {
            try ConfigDocument.parse(text)
        } throws: { error in
            guard let e = error as? ConfigSyntaxError else { return false }
            return e.line == line && e.message.contains(message)
        }
    }

    /// The precheck follows strings and comments, so valid TOML that looks like those spots
    /// is read as toml++ reads it.
    @Test func validLookalikesAreRead() throws {
        let doc = try ConfigDocument.parse("""
            s = "[[[x]]] [} 1979-05-27tx"
            m = \"\"\"
            [[[not a header]]]
            [}
            a""\"\"
            l = '''
            [=
            '''
            k = [ # comment [}
              "a",
              [ 1, 2 ],
              { x = "}" },
            ]
            d = 1979-05-27t07:32:00
            "1979-05-27t" = 1
            e = [] # [}
            [t] # a comment with \"\"\"
            b = \"\"\"
            [=
            \"\"\"
            """)
        #expect(doc.root["s"] == .string("[[[x]]] [} 1979-05-27tx"))
        #expect(doc.root["m"] == .string("[[[not a header]]]\n[}\na\""))
        #expect(doc.root["l"] == .string("[=\n"))
        #expect(doc.root["k"]?.array?.count == 3)
        #expect(doc.root["1979-05-27t"] == .integer(1))
        #expect(doc.root["t"]?.table?["b"] == .string("[=\n"))
    }

    /// CRLF files: lines are counted as toml++ counts them (by LF).
    @Test func crlfLines() throws {
        let doc = try ConfigDocument.parse("a = 1\r\n\r\n[[s]]\r\nb = 2\r\n")
        #expect(doc.line(of: "s[0]") == 3 && doc.line(of: "s[0].b") == 4)
    }

    /// Lines come from the scanner that follows strings: a `'''` inside a one-line string or
    /// a multi-line array does not shift the lines of the keys after it.
    @Test func quotesInsideStringsDoNotShiftLines() throws {
        let doc = try ConfigDocument.parse("a = \"'''\"\nb = [\n  \"x = 1\",\n]\nc = 2\n")
        #expect(doc.line(of: "b") == 2 && doc.line(of: "c") == 5 && doc.line(of: "x") == 1)
    }

    @Test func syntaxErrorsCarryTheirLine() {
        #expect {
            try ConfigDocument.parse("a = 1\nb = \nc = 2")
        } throws: { error in
            (error as? ConfigSyntaxError)?.line == 2
        }
        #expect {
            try ConfigDocument.parse("a = 1\n\0")
        } throws: { error in
            (error as? ConfigSyntaxError).map { $0.line == 2 && $0.message.contains("NUL") } ?? false
        }
    }
}
